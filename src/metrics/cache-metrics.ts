// An in-process cache's counters as Prometheus metrics, read from the cache at each scrape: the
// GET /posts/{id} cache (blog_post_cache_*) and listPosts' cache of public pages (blog_list_cache_*).
import type { Metrics } from './metrics.ts'
import { mirroredCounter, mirroredGauge } from './mirrored.ts'

export interface CacheStats {
  hits: number
  misses: number
  evictions: number
  entries: number
  bytes: number
}

export interface CacheWords {
  /** `blog_post_cache`: the series are `<prefix>_hits_total` and so on. */
  prefix: string
  /** What a read asks for: "GET /posts/{id} reads". */
  reads: string
  /** What an entry is: "posts". */
  entries: string
}

export function addCacheMetrics(metrics: Metrics, words: CacheWords, stats: () => CacheStats) {
  const { prefix, reads, entries } = words
  metrics.addCollector(mirroredCounter(`${prefix}_hits_total`, `${reads} answered from memory.`, () => stats().hits))
  metrics.addCollector(
    mirroredCounter(`${prefix}_misses_total`, `${reads} that loaded from the database.`, () => stats().misses),
  )
  metrics.addCollector(
    mirroredCounter(`${prefix}_evictions_total`, `Cached ${entries} pushed out to make room.`, () => stats().evictions),
  )
  metrics.addCollector(mirroredGauge(`${prefix}_entries`, `Cached ${entries}.`, () => stats().entries))
  metrics.addCollector(
    mirroredGauge(`${prefix}_bytes`, `Estimated size of the cached ${entries}.`, () => stats().bytes),
  )
}
