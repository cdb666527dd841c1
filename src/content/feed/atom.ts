// An Atom 1.0 feed document (RFC 4287) of published posts, written by hand: a few elements, every
// text through the escaper of xml-text.ts. Its size is bounded whatever the posts hold: at most
// FEED_ENTRIES entries, and the bodies, the one large field, within the budgets below; the other
// fields are bounded by the contract (a title of 200 characters, 10 categories, …).
import { entryContent, entryLink } from './feed-entry.ts'
import type { Post } from '../posts/post-view.ts'
import { xmlAttribute, xmlText } from './xml-text.ts'

/** The newest posts a feed carries. */
export const FEED_ENTRIES = 20
/** An entry whose escaped content is longer carries none: its summary and link stand for it. */
export const ENTRY_CONTENT_MAX_BYTES = 64 * 1024
/** The contents of all entries together, given to the newest first: the others carry none. */
export const FEED_CONTENT_MAX_BYTES = 256 * 1024
/**
 * What a document stays within, by the budgets above and the contract's bounds on every other
 * field (test/content/feed/bounds.test.ts fills every field to its limit with the costliest text).
 */
export const FEED_MAX_BYTES = 512 * 1024

/** When a feed without entries was last updated: never, as far as it can tell. */
const NEVER = new Date(0).toISOString()

export interface FeedHead {
  /** An IRI that names the feed for good. */
  id: string
  title: string
  /** The feed's own author, who stands for any entry without one (every entry has one). */
  author: string
  self: string
  alternate: { href: string; type: string }
}

const element = (name: string, text: string) => `<${name}>${xmlText(text)}</${name}>`
const textElement = (name: string, type: string, text: string) => `<${name} type="${type}">${xmlText(text)}</${name}>`
const link = (rel: string, type: string, href: string) =>
  `<link rel="${rel}" type="${xmlAttribute(type)}" href="${xmlAttribute(href)}"/>`
const person = (name: string) => `<author>${element('name', name)}</author>`

/** Publication dates for both `published` and `updated`: see the contract's getFeed. */
const publishedAt = (post: Post) => post.publishedAt ?? post.createdAt

function entry(post: Post, publicUrl: string, content: string | null): string {
  const target = entryLink(publicUrl, post)
  return [
    '<entry>',
    element('id', `urn:uuid:${post.id}`),
    textElement('title', 'text', post.title),
    element('published', publishedAt(post)),
    element('updated', publishedAt(post)),
    person(post.author.name),
    link('alternate', target.type, target.href),
    ...post.categories.map(
      (category) => `<category term="${xmlAttribute(category.slug)}" label="${xmlAttribute(category.name)}"/>`,
    ),
    ...(post.excerpt === '' ? [] : [textElement('summary', 'text', post.excerpt)]),
    ...(content === null ? [] : [content]),
    '</entry>',
  ].join('\n')
}

/** The feed of `posts`, newest first, as UTF-8 bytes. */
export function renderAtom(head: FeedHead, posts: Post[], publicUrl: string): Buffer {
  let contentLeft = FEED_CONTENT_MAX_BYTES
  const entries = posts.slice(0, FEED_ENTRIES).map((post) => {
    const { type, text } = entryContent(post)
    let content: string | null = textElement('content', type, text)
    const bytes = Buffer.byteLength(content)
    if (bytes > ENTRY_CONTENT_MAX_BYTES || bytes > contentLeft) content = null
    else contentLeft -= bytes
    return entry(post, publicUrl, content)
  })
  const document = [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<feed xmlns="http://www.w3.org/2005/Atom">',
    element('id', head.id),
    textElement('title', 'text', head.title),
    element('updated', posts[0] === undefined ? NEVER : publishedAt(posts[0])),
    person(head.author),
    link('self', 'application/atom+xml', head.self),
    link('alternate', head.alternate.type, head.alternate.href),
    ...entries,
    '</feed>',
    '',
  ].join('\n')
  return Buffer.from(document, 'utf8')
}
