// The read caches, as makeServices builds them: posts by id, slugs, public list pages and feeds,
// with their sizes derived from the post cache's settings, their metrics, and the one `changes`
// that every writer calls once its write has committed (docs/architecture.md, "Caches").
import type { Config } from '../config.ts'
import { makeFeedCache } from '../content/feed/feed.ts'
import { listPageFootprintBound, makeListCache } from '../content/posts/list-cache.ts'
import { makePostCache } from '../content/posts/post-cache.ts'
import { makePostChanges, type Broadcast } from '../content/posts/post-changes.ts'
import type { PostStore } from '../content/posts/post-store.ts'
import { loadPost } from '../content/posts/posts.ts'
import type { PostSlugStore } from '../content/slugs/post-slug-store.ts'
import { makeSlugCache } from '../content/slugs/slug-cache.ts'
import type { ListGeneration } from '../db/list-generation.ts'
import type { Logger } from '../log.ts'
import { addCacheMetrics } from '../metrics/cache-metrics.ts'
import type { Metrics } from '../metrics/metrics.ts'

/** Distinct public pages kept: the first pages of the front page, of each category and author. */
const LIST_CACHE_MAX_ENTRIES = 2_000
/** Feeds kept: all posts' and each category's, by id and by slug. */
const FEED_CACHE_MAX_ENTRIES = 500

export interface CachesOptions {
  config: Config
  stores: { posts: PostStore; postSlugs: PostSlugStore }
  listGeneration: ListGeneration
  /** Tells the other instances of a change (NOTIFY on PostgreSQL); null on the embedded database. */
  broadcast: Broadcast
  metrics: Metrics
  log: Logger
}

export function makeCaches({ config, stores, listGeneration, broadcast, metrics, log }: CachesOptions) {
  const postCache = makePostCache(loadPost(stores.posts), {
    maxEntries: config.postCacheMaxEntries,
    maxBytes: config.postCacheMaxBytes,
    ttlMs: config.postCacheTtlSeconds * 1000,
  })
  addCacheMetrics(
    metrics,
    { prefix: 'blog_post_cache', reads: 'GET /posts/{id} reads', entries: 'posts' },
    postCache.stats,
  )
  // Slug → post id for getPostBySlug, in front of the post cache: as many entries, on and off with it.
  const slugCache = makeSlugCache(stores.postSlugs.find, {
    maxEntries: config.postCacheMaxEntries,
    ttlMs: config.postCacheTtlSeconds * 1000,
  })
  // Public list pages: a quarter of the post cache's bytes, since a page holds up to a hundred
  // posts; on and off with it (the benchmark's baseline turns both off).
  // Every page within the list page budget is kept (as long as the cache holds one at all).
  const listCache = makeListCache({
    maxEntries: Math.min(config.postCacheMaxEntries, LIST_CACHE_MAX_ENTRIES),
    maxBytes: Math.floor(config.postCacheMaxBytes / 4),
    ttlMs: config.postCacheTtlSeconds * 1000,
    entryMaxBytes: listPageFootprintBound(config.listPageMaxBytes),
  })
  addCacheMetrics(
    metrics,
    { prefix: 'blog_list_cache', reads: 'Public listPosts pages', entries: 'list pages' },
    listCache.stats,
  )
  // Feeds: an eighth of the post cache's bytes (8 MiB by default: 16 feeds at their largest, see
  // atom.ts; none larger than an eighth of that is kept), the same TTL, on and off with it.
  const feedCache = makeFeedCache({
    maxEntries: Math.min(config.postCacheMaxEntries, FEED_CACHE_MAX_ENTRIES),
    maxBytes: Math.floor(config.postCacheMaxBytes / 8),
    ttlMs: config.postCacheTtlSeconds * 1000,
  })
  addCacheMetrics(metrics, { prefix: 'blog_feed_cache', reads: 'getFeed reads', entries: 'feeds' }, feedCache.stats)
  const caches = [postCache, listCache, feedCache]
  const changes = makePostChanges([...caches, slugCache], broadcast, listGeneration, log)
  return { postCache, slugCache, listCache, feedCache, changes }
}

export type Caches = ReturnType<typeof makeCaches>
