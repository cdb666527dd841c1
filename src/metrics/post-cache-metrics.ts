// The GET /posts/{id} cache's counters as Prometheus metrics, read from the cache at each scrape.
import { Counter, Gauge } from 'prom-client'
import type { PostCacheStats } from '../content/post-cache.ts'
import type { Metrics } from './metrics.ts'

export function addPostCacheMetrics(metrics: Metrics, stats: () => PostCacheStats) {
  // A counter that mirrors a count kept elsewhere: set to it at each scrape.
  const mirror = (name: string, help: string, read: (current: PostCacheStats) => number) =>
    new Counter({
      name,
      help,
      registers: [],
      collect() {
        this.reset()
        this.inc(read(stats()))
      },
    })
  metrics.addCollector(mirror('blog_post_cache_hits_total', 'GET /posts/{id} reads answered from memory.', (s) => s.hits))
  metrics.addCollector(mirror('blog_post_cache_misses_total', 'GET /posts/{id} reads that loaded the post from the database.', (s) => s.misses))
  metrics.addCollector(mirror('blog_post_cache_evictions_total', 'Cached posts pushed out to make room.', (s) => s.evictions))
  metrics.addCollector(new Gauge({ name: 'blog_post_cache_entries', help: 'Posts in the cache.', registers: [], collect() { this.set(stats().entries) } }))
  metrics.addCollector(new Gauge({ name: 'blog_post_cache_bytes', help: 'Estimated size of the cached posts.', registers: [], collect() { this.set(stats().bytes) } }))
}
