// How a post looks on the wire, and its ETag. Its excerpt is derived in excerpt.ts.
import { createHash } from 'node:crypto'
import type { components } from '../../generated/api.ts'
import type { AssertTrue, ListsEveryKeyOnce, Wire } from '../../wire.ts'
import type { PostRecord } from './post-store.ts'
import { imageUrl } from '../../storage/image-url.ts'

export type Post = components['schemas']['Post']

/**
 * A post's properties in the order the server writes them: toPost's literal follows it (checked by
 * test/content/posts/post-view.test.ts) and the list SQL is built from it (post-list-store.ts,
 * postColumns), so a list item and GET /posts/{id} are the same bytes. A property the spec adds
 * fails the type-check here until it is listed, in toPost, and in postColumns.
 */
export const POST_KEYS = [
  'id',
  'title',
  'body',
  'html',
  'excerpt',
  'status',
  'publishedAt',
  'author',
  'categories',
  'thumbnail',
  'mediaIds',
  'commentCount',
  'commentsOpen',
  'createdAt',
  'updatedAt',
  'slug',
] as const satisfies readonly (keyof Post)[]
export type PostKeysChecked = AssertTrue<ListsEveryKeyOnce<Post, typeof POST_KEYS>>
type ImageType = components['schemas']['ThumbnailSize']['contentType']

/**
 * The order lists write categories in too (post-list-store.ts, `collate "C"`): the same for ASCII, which
 * slugs are, whatever the locale; localeCompare would follow the locale.
 */
const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/**
 * A post's HTML as stored: rendered and sanitized when its body was written
 * (src/content/html/post-html.ts), safe to insert into a page. Empty while a post written before
 * html existed waits for the render-posts job: a read never renders.
 */
export const storedHtml = (post: { html: string | null }): string => post.html ?? ''

type StoredImage = { image: { key: string; width: number; height: number; contentType: string } }

/** A thumbnail's sizes as posts (and revisions) show them: narrowest first, urls from `imageUrls`. */
export const thumbnailSizes = (images: StoredImage[], imageUrls: string) =>
  images
    .map(({ image }) => ({
      width: image.width,
      height: image.height,
      url: imageUrl(imageUrls, image.key),
      contentType: image.contentType as ImageType,
    }))
    .sort((a, b) => a.width - b.width || byCodePoint(a.url, b.url))

/**
 * The post as the server writes it: every property, in POST_KEYS's order. Image urls start with
 * `imageUrls` (imageUrlPrefix, src/storage/image-url.ts), as the list SQL (postColumns) writes them.
 */
export function toPost(post: PostRecord, imageUrls: string): Wire<Post> {
  const sizes = thumbnailSizes(post.thumbnail, imageUrls)
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
    mediaIds: post.media.map(({ mediaId }) => mediaId).sort(byCodePoint),
    commentCount: post.commentCount,
    commentsOpen: post.commentsOpen,
    createdAt: post.createdAt.toISOString(),
    updatedAt: post.updatedAt.toISOString(),
    slug: post.slug,
  }
}

/** A strong ETag over everything the client sees: any change to the representation changes it. */
export const etagOf = (post: Post) => etagOfJson(JSON.stringify(post))

/** The same ETag, from the post's JSON when it is at hand. */
export const etagOfJson = (json: string) => `"${createHash('sha256').update(json).digest('base64url').slice(0, 32)}"`
