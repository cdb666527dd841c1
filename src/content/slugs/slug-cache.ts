// Which post a slug leads to, kept in memory so that getPostBySlug costs what getPost costs: a
// map lookup, then the post cache (post-cache.ts) by id. Bounded by entries (a slug and an id are
// some hundred bytes), invalidated with the post cache: every write to a post makes each instance
// forget the slugs that led to it (post-changes.ts), so a slug let go and taken by another post is
// never followed to the old one. A slug leads nowhere else in any other way: it leaves a post only
// in a write to that post (a new slug pushing it past the earlier ones kept, or the post deleted).
import { LRUCache } from 'lru-cache'
import type { PostSelector } from '../posts/post-cache.ts'

export interface SlugCacheOptions {
  /** 0 turns it off, with the post cache: every read asks the database. */
  maxEntries: number
  ttlMs: number
}

/** Where a slug leads: the post's id, and its current slug when read from the database just now. */
export interface SlugLookup {
  id: string
  current?: string
}

export function makeSlugCache(
  resolve: (slug: string) => Promise<{ id: string; current: string } | null>,
  options: SlugCacheOptions,
) {
  const enabled = options.maxEntries > 0
  /** The slugs held for each post id, so that a write to a post finds them without a scan. */
  const slugsOf = new Map<string, Set<string>>()
  const ids = new LRUCache<string, string>({
    max: Math.max(options.maxEntries, 1),
    ttl: options.ttlMs,
    // Every way out (evicted, expired, deleted, replaced) keeps slugsOf in step.
    dispose: (id, slug) => {
      const slugs = slugsOf.get(id)
      slugs?.delete(slug)
      if (slugs?.size === 0) slugsOf.delete(id)
    },
  })
  /**
   * Moved on by every invalidation: a lookup that began before one may have read what the write
   * changed, so what it found is answered but not kept.
   */
  let generation = 0
  const stats = { hits: 0, misses: 0 }

  return {
    /** Where `slug` leads, or null; from memory when it is there. */
    async get(slug: string): Promise<SlugLookup | null> {
      const cached = enabled ? ids.get(slug) : undefined
      if (cached !== undefined) {
        stats.hits++
        return { id: cached }
      }
      stats.misses++
      const started = generation
      const found = await resolve(slug)
      // Only slugs that lead somewhere are kept: unknown slugs must not fill the map.
      if (found !== null && enabled && generation === started) {
        ids.set(slug, found.id)
        const slugs = slugsOf.get(found.id) ?? new Set<string>()
        slugsOf.set(found.id, slugs.add(slug))
      }
      return found
    },

    /** Forgets one slug: it led to a post that is gone. */
    forget(slug: string) {
      generation++
      ids.delete(slug)
    },

    invalidate(selector: PostSelector) {
      // Only a write to the post itself changes where its slugs lead: a renamed author or
      // category, or a post just created (its slugs were free, so held by nobody), leaves them.
      if (!('postId' in selector)) return
      generation++
      for (const slug of [...(slugsOf.get(selector.postId) ?? [])]) ids.delete(slug)
    },

    clear() {
      generation++
      ids.clear()
      slugsOf.clear()
    },

    stats: () => ({ ...stats, entries: ids.size }),
  }
}

export type SlugCache = ReturnType<typeof makeSlugCache>
