// What a feed entry takes from its post beyond the plain fields: its content and its link. Each in
// one function, so that what they are made of can change in one place.
import type { Post } from '../posts/post-view.ts'

export interface EntryContent {
  /** Atom's text construct type: `text` is shown as is, `html` is HTML escaped as text. */
  type: 'text' | 'html'
  text: string
}

/**
 * The entry's content: the post's rendered, sanitized `html`; the Markdown body as plain text while
 * a post written before html existed waits for the render-posts job (its html is then empty).
 */
export const entryContent = (post: Post): EntryContent =>
  post.html === undefined || post.html === '' ? { type: 'text', text: post.body } : { type: 'html', text: post.html }

export interface EntryLink {
  href: string
  type: string
}

/**
 * The entry's link to its post, absolute from the service's public URL (PUBLIC_URL): getPostBySlug,
 * readable, and still answered after a rename (an old slug keeps resolving).
 */
export const entryLink = (publicUrl: string, post: Post): EntryLink => ({
  href: `${publicUrl}/posts/by-slug/${post.slug}`,
  type: 'application/json',
})
