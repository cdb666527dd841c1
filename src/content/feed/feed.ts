// getFeed: the Atom feed of the newest published posts, of all or of one category. The same for
// every caller, so each is kept as its final bytes in a list cache (makeListCacheOf): the writes
// that change lists invalidate it on every instance, and it is served only while the lists'
// generation it was read at is current, so the next read after a write's answer shows the write
// everywhere. The posts are read as listPosts reads a page (one statement, the same JSON).
import { createHash } from 'node:crypto'
import { notFound } from '../../errors/api-error.ts'
import type { ListGeneration } from '../../db/list-generation.ts'
import { FEED_ENTRIES, renderAtom } from './atom.ts'
import type { CategoryStore } from '../categories/category-store.ts'
import type { CachedList, ListCacheOptions } from '../posts/list-cache.ts'
import { makeListCacheOf } from '../posts/list-cache.ts'
import type { PostStore } from '../posts/post-store.ts'
import type { Post } from '../posts/post-view.ts'
import { uuidV5OfUrl } from '../slugs/uuid-v5.ts'

export type FeedDocument = CachedList

export const makeFeedCache = (options: ListCacheOptions) => makeListCacheOf<FeedDocument>(options)
export type FeedCache = ReturnType<typeof makeFeedCache>

/** A feed as getFeed sends it, with the dates its Last-Modified is made of (src/http/headers/conditional.ts). */
export interface Feed extends FeedDocument {
  /** When what any list shows last changed, and the time it was read at: both on the database's clock. */
  changedAt: Date
  now: Date
}

export interface FeedServiceOptions {
  posts: Pick<PostStore, 'list'>
  categories: Pick<CategoryStore, 'findByIdOrSlug'>
  cache: FeedCache
  listGeneration: Pick<ListGeneration, 'stamp'>
  /** Where clients reach the service (PUBLIC_URL), without a trailing slash: links are absolute. */
  publicUrl: string
  /** The feed's title and author (FEED_TITLE). */
  title: string
}

const etagOf = (bytes: Buffer) => `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 32)}"`

export function makeFeedService({ posts, categories, cache, listGeneration, publicUrl, title }: FeedServiceOptions) {
  async function load(category: string | undefined): Promise<FeedDocument> {
    const filter = category === undefined ? null : await categories.findByIdOrSlug(category)
    // Unlike listPosts' empty list: a subscription to a mistyped or deleted category should say so.
    if (category !== undefined && filter === null) throw notFound('CATEGORY_NOT_FOUND', 'Category')
    // Every one of the newest FEED_ENTRIES posts: the feed bounds its own bytes (atom.ts), by leaving
    // out the content of posts past its budget rather than the posts.
    const page = await posts.list({
      status: 'published',
      categoryId: filter?.id,
      limit: FEED_ENTRIES,
      maxBytes: Number.MAX_SAFE_INTEGER,
    })
    // By id, not by the slug it may have been asked by: the feed's URL, and so its id, outlive a new slug.
    const query = filter === null ? '' : `?category=${filter.id}`
    const self = `${publicUrl}/feed.atom${query}`
    const bytes = renderAtom(
      {
        id: `urn:uuid:${uuidV5OfUrl(self)}`,
        title: filter === null ? title : `${title}: ${filter.name}`,
        author: title,
        self,
        alternate: { href: `${publicUrl}/posts${query}`, type: 'application/json' },
      },
      JSON.parse(page.json) as Post[],
      publicUrl,
    )
    return { bytes, etag: etagOf(bytes), postIds: page.postIds, authorIds: page.authorIds }
  }

  return {
    /** The feed of `category` (an id in either case, or a slug), or of all posts; 404 for an unknown category. */
    async read(category: string | undefined): Promise<Feed> {
      const stamp = await listGeneration.stamp()
      // Keyed as asked, so that a hit needs no lookup of the category; an unknown one is never kept.
      const key = category === undefined ? '' : category.toLowerCase()
      const document = await cache.get(key, stamp.value, () => load(category))
      return { ...document, changedAt: stamp.changedAt, now: stamp.now }
    },
  }
}

export type FeedService = ReturnType<typeof makeFeedService>
