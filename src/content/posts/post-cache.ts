// The in-process cache behind GET /posts/{id}. Bounded by entries and bytes; the TTL is only a
// safety net, since every write that changes a post invalidates it (src/content/posts/post-changes.ts).
// Concurrent misses for one id share one database read. Visibility is not the cache's business:
// it holds posts as stored, and the caller checks who may see them on every request.
import { LRUCache } from 'lru-cache'
import { etagOfJson, type Post } from './post-view.ts'

export interface CachedPost {
  post: Post
  etag: string
  /** The post as UTF-8 JSON, made once: a hit costs no serialisation or encoding of the body. */
  bytes: Buffer
}

export interface PostCacheOptions {
  /** 0 turns the cache off: every read goes to the database (the benchmark's baseline). */
  maxEntries: number
  maxBytes: number
  ttlMs: number
}

export interface PostCacheStats {
  hits: number
  misses: number
  /** Entries pushed out to make room (not those invalidated or expired). */
  evictions: number
  entries: number
  bytes: number
}

/**
 * What a selective invalidation matches on: the post itself, its author, or one of its categories.
 * `listsChanged` says the post may have moved into, out of or within lists (see list-cache.ts);
 * `createdPostId` names a post just published by its creation, in lists but in no post cache yet.
 */
export type PostSelector =
  { postId: string; listsChanged?: boolean } | { authorId: string } | { categoryId: string } | { createdPostId: string }

const matches = (post: Post, selector: Exclude<PostSelector, { createdPostId: string }>) =>
  'postId' in selector
    ? post.id === selector.postId
    : 'authorId' in selector
      ? post.author.id === selector.authorId
      : post.categories.some((category) => category.id === selector.categoryId)

/** A post's footprint: its bytes, the object (about twice as much, in UTF-16 strings) and some overhead. */
const sizeOf = (entry: CachedPost) => entry.bytes.length * 3 + 512

/** `load` answers a post as the JSON the API sends for it (the database writes it: post-store.ts), or null. */
export function makePostCache(load: (id: string) => Promise<string | null>, options: PostCacheOptions) {
  const stats = { hits: 0, misses: 0, evictions: 0 }
  const enabled = options.maxEntries > 0
  const cache = new LRUCache<string, CachedPost>({
    max: Math.max(options.maxEntries, 1),
    maxSize: options.maxBytes,
    sizeCalculation: sizeOf,
    ttl: options.ttlMs,
    dispose: (_value, _key, reason) => {
      if (reason === 'evict') stats.evictions++
    },
  })
  /**
   * Reads in flight, by id. An invalidation removes the entry, so a read started before a write
   * never stores what it read (it may be older than the write), and a read started after the
   * write never joins it.
   */
  const inflight = new Map<string, Promise<CachedPost | null>>()

  function loadShared(id: string): Promise<CachedPost | null> {
    const pending = inflight.get(id)
    if (pending) return pending
    stats.misses++
    const read = load(id).then(
      (json) => {
        // The object answers who may see the post and which invalidations match it; the bytes are sent.
        const entry =
          json === null ? null : { post: JSON.parse(json) as Post, etag: etagOfJson(json), bytes: Buffer.from(json) }
        if (inflight.get(id) === read) {
          inflight.delete(id)
          // Only posts are kept: a miss for an unknown id must not fill the cache.
          if (entry !== null && enabled) cache.set(id, entry)
        }
        return entry
      },
      (error: unknown) => {
        if (inflight.get(id) === read) inflight.delete(id)
        throw error
      },
    )
    inflight.set(id, read)
    return read
  }

  /** The post when it is in memory, at once: a hit needs no promise. */
  function peek(id: string): CachedPost | undefined {
    const cached = enabled ? cache.get(id) : undefined
    if (cached) stats.hits++
    return cached
  }

  return {
    peek,

    /** The post as stored, or null when there is none; from memory when it is there. */
    async get(id: string): Promise<CachedPost | null> {
      return peek(id) ?? loadShared(id)
    },

    /** Forgets every post the selector matches (and every read in flight that might). */
    invalidate(selector: PostSelector) {
      // A post just created was never read: nothing here can hold it, nor a read in flight have found it.
      if ('createdPostId' in selector) return
      if ('postId' in selector) {
        cache.delete(selector.postId)
        inflight.delete(selector.postId)
        return
      }
      // A read in flight has no post yet to match against: all of them are dropped.
      inflight.clear()
      const stale = [...cache.entries()].filter(([, entry]) => matches(entry.post, selector)).map(([id]) => id)
      for (const id of stale) cache.delete(id)
    },

    /** Forgets everything: after notifications may have been missed. */
    clear() {
      cache.clear()
      inflight.clear()
    },

    stats: (): PostCacheStats => ({ ...stats, entries: cache.size, bytes: cache.calculatedSize }),
  }
}

export type PostCache = ReturnType<typeof makePostCache>
