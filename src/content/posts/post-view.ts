// How a post looks on the wire, and its ETag. Its excerpt is derived in excerpt.ts.
import { createHash } from 'node:crypto'
import type { components } from '../../generated/api.ts'
import type { PostRecord } from './post-store.ts'

export type Post = components['schemas']['Post']
type ImageType = components['schemas']['ThumbnailSize']['contentType']

/**
 * The order lists write categories in too (post-store.ts, `collate "C"`): the same for ASCII, which
 * slugs are, whatever the locale; localeCompare would follow the locale.
 */
const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/**
 * A post's HTML as stored: rendered and sanitized when its body was written
 * (src/content/html/post-html.ts), safe to insert into a page. Empty while a post written before
 * html existed waits for the render-posts job: a read never renders.
 */
export const storedHtml = (post: { html: string | null }): string => post.html ?? ''

export function toPost(post: PostRecord): Post {
  const sizes = post.thumbnail
    .map(({ image }) => ({
      width: image.width,
      height: image.height,
      url: `/images/${image.key}`,
      contentType: image.contentType as ImageType,
    }))
    .sort((a, b) => a.width - b.width || byCodePoint(a.url, b.url))
  return {
    id: post.id,
    title: post.title,
    body: post.body,
    html: storedHtml(post),
    excerpt: post.excerpt,
    status: post.status,
    publishedAt: post.publishedAt?.toISOString() ?? null,
    author: post.author,
    categories: post.categories.map(({ category }) => category).sort((a, b) => byCodePoint(a.slug, b.slug)),
    thumbnail: sizes.length > 0 ? { sizes } : null,
    commentCount: post.commentCount,
    createdAt: post.createdAt.toISOString(),
    updatedAt: post.updatedAt.toISOString(),
    // Last, as lists write it too (post-store.ts, POST_JSON).
    slug: post.slug,
  }
}

/** A strong ETag over everything the client sees: any change to the representation changes it. */
export const etagOf = (post: Post) => etagOfJson(JSON.stringify(post))

/** The same ETag, from the post's JSON when it is at hand. */
export const etagOfJson = (json: string) => `"${createHash('sha256').update(json).digest('base64url').slice(0, 32)}"`
