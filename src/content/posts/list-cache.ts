// The in-process cache of public post lists (published posts, no search): the pages every caller
// sees alike, the front page and each category's first pages above all. It holds each page as the
// JSON it is sent as, with its ETag, so a hit costs no database round trip and no serialisation.
// Anyone can ask for many distinct pages (cursors, authors), so it is bounded by entries and by
// bytes; the TTL is only a safety net, since every write that changes what a list shows
// invalidates it (src/content/posts/post-changes.ts), on every instance. The Atom feed is cached by the
// same code (makeListCacheOf), since the same writes change it.
import { createHash } from 'node:crypto'
import { LRUCache } from 'lru-cache'
import type { components } from '../../generated/api.ts'
import { HTML_MAX_LENGTH } from '../html/limits.ts'
import type { PostSelector } from './post-cache.ts'

type PageMeta = components['schemas']['PageMeta']

/** What a list cache holds: a list as it is sent, and the posts and authors it shows. */
export interface CachedList {
  bytes: Buffer
  etag: string
  /** The posts on the page and their authors: what a selective invalidation matches on. */
  postIds: string[]
  authorIds: string[]
}

export interface ListedPosts extends CachedList {
  /** The page's posts as a JSON array in UTF-8, exactly as GET /posts/{id} writes each of them. */
  bytes: Buffer
  page: PageMeta
  /** `page` as the envelope's meta carries it (see successBytes). */
  pageBytes: Buffer
}

/** A page as kept: with the lists' generation it was read at (src/db/list-generation.ts). */
interface Entry<T extends CachedList> {
  listed: T
  generation: bigint
}

export interface ListCacheOptions {
  /** 0 turns the cache off. */
  maxEntries: number
  maxBytes: number
  ttlMs: number
  /**
   * The largest entry that must still be kept (up to a quarter of maxBytes): listPosts' pages up to
   * their byte budget, so that a heavy page within it is built once, not on every read. Others are
   * kept up to an eighth of maxBytes.
   */
  entryMaxBytes?: number
}

export interface ListCacheStats {
  hits: number
  misses: number
  /** Entries pushed out to make room (not those invalidated or expired). */
  evictions: number
  entries: number
  bytes: number
}

/** `page` as the envelope's meta carries it after the request id (see successBytes in src/http/envelope.ts). */
export const pageMetaBytes = (page: PageMeta) => Buffer.from(`,"page":${JSON.stringify(page)}`)

/** A strong ETag over the page as the client sees it: its posts and its paging. */
export const listEtagOf = (bytes: Buffer, page: PageMeta) =>
  `"${createHash('sha256').update(bytes).update(JSON.stringify(page)).digest('base64url').slice(0, 32)}"`

/** A list's footprint: its bytes (and `moreBytes` kept beside them), its ids, and some overhead. */
const footprint = (listed: CachedList, moreBytes = 0) =>
  listed.bytes.length + moreBytes + (listed.postIds.length + listed.authorIds.length) * 100 + 512

/**
 * The most one post written now weighs in a listPosts page, as JSON in UTF-8: its html, body,
 * title and excerpt at their longest (the spec's `Post`), at three bytes a character (UTF-8's most
 * for one UTF-16 unit; a quote, backslash or line end escaped in JSON takes two), and 64 KiB for its
 * other fields (ids, dates, ten categories, the thumbnail). Text stored before control characters
 * were refused can weigh more (six bytes for `\u0001`); such a post's pages may not be kept.
 */
export const POST_JSON_MAX_BYTES = 3 * (HTML_MAX_LENGTH + 100_000 + 200 + 500) + 64 * 1024

/**
 * What a listPosts page within a byte budget of `pageMaxBytes` takes in the list cache, at most:
 * its posts (within the budget, or one post alone that is larger, up to POST_JSON_MAX_BYTES), its
 * paging and its ids (see footprint).
 */
export const listPageFootprintBound = (pageMaxBytes: number) => Math.max(pageMaxBytes, POST_JSON_MAX_BYTES) + 64 * 1024

/** listPosts' public pages. */
export const makeListCache = (options: ListCacheOptions) =>
  makeListCacheOf<ListedPosts>(options, (page) => footprint(page, page.pageBytes.length))

/** A cache of lists of any kind sent as bytes, which the writes that change lists invalidate. */
export function makeListCacheOf<T extends CachedList>(
  options: ListCacheOptions,
  sizeOf: (listed: T) => number = footprint,
) {
  const stats = { hits: 0, misses: 0, evictions: 0 }
  const enabled = options.maxEntries > 0
  const cache = new LRUCache<string, Entry<T>>({
    max: Math.max(options.maxEntries, 1),
    maxSize: options.maxBytes,
    // One page of very long posts must not push out every other page: a page is kept up to an
    // eighth of the cache, or up to what the list page budget allows (entryMaxBytes), but never
    // past a quarter of it, so that four pages always fit. The default cache (16 MiB) keeps every
    // page within the default budget.
    maxEntrySize: Math.max(
      1,
      Math.min(
        Math.floor(options.maxBytes / 4),
        Math.max(Math.floor(options.maxBytes / 8), options.entryMaxBytes ?? 0),
      ),
    ),
    sizeCalculation: ({ listed }) => sizeOf(listed),
    ttl: options.ttlMs,
    dispose: (_value, _key, reason) => {
      if (reason === 'evict') stats.evictions++
    },
  })
  /**
   * Reads in flight, by key, with the lists' generation they started at: a read joins one only of
   * the same generation. Every invalidation also empties it and moves `invalidations` on: a read
   * that started before a write this instance heard of may have read the list as it was before,
   * so it never stores its result, and a read started after it never joins it.
   */
  const inflight = new Map<string, { generation: bigint; read: Promise<T> }>()
  let invalidations = 0

  function forgetInflight() {
    invalidations++
    inflight.clear()
  }

  function loadShared(key: string, generation: bigint, load: () => Promise<T>): Promise<T> {
    const pending = inflight.get(key)
    if (pending?.generation === generation) return pending.read
    stats.misses++
    const started = invalidations
    const read: Promise<T> = load().then(
      (listed) => {
        if (inflight.get(key)?.read === read) inflight.delete(key)
        if (started === invalidations && enabled) cache.set(key, { listed, generation })
        return listed
      },
      (error: unknown) => {
        if (inflight.get(key)?.read === read) inflight.delete(key)
        throw error
      },
    )
    inflight.set(key, { generation, read })
    return read
  }

  return {
    /**
     * The page under `key`, from memory when it is there and was read at `generation` (the lists'
     * current one, read by the caller before anything else); `load` reads it otherwise.
     */
    async get(key: string, generation: bigint, load: () => Promise<T>): Promise<T> {
      const cached = enabled ? cache.get(key) : undefined
      if (cached?.generation === generation) {
        stats.hits++
        return cached.listed
      }
      return loadShared(key, generation, load)
    },

    /**
     * Forgets every page the change may show on. A change to a post's own fields (its comment
     * count, its thumbnail) or to its author's name shows only on the pages that hold it; one that
     * may move posts into, out of or within lists (a post written, published or deleted, a
     * category renamed or deleted) may show on any page.
     */
    invalidate(selector: PostSelector) {
      forgetInflight()
      if ('categoryId' in selector || 'createdPostId' in selector || ('postId' in selector && selector.listsChanged))
        return void cache.clear()
      const holds =
        'postId' in selector
          ? ({ listed }: Entry<T>) => listed.postIds.includes(selector.postId)
          : ({ listed }: Entry<T>) => listed.authorIds.includes(selector.authorId)
      const stale = [...cache.entries()].filter(([, entry]) => holds(entry)).map(([key]) => key)
      for (const key of stale) cache.delete(key)
    },

    /** Forgets everything: after notifications may have been missed. */
    clear() {
      forgetInflight()
      cache.clear()
    },

    stats: (): ListCacheStats => ({ ...stats, entries: cache.size, bytes: cache.calculatedSize }),
  }
}

export type ListCache = ReturnType<typeof makeListCache>
