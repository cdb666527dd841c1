// The GET /posts/{id} cache's counters as Prometheus metrics, read from the cache at each scrape.
import type { PostCacheStats } from '../content/post-cache.ts'
import type { Metrics } from './metrics.ts'
import { mirroredCounter, mirroredGauge } from './mirrored.ts'

export function addPostCacheMetrics(metrics: Metrics, stats: () => PostCacheStats) {
  metrics.addCollector(
    mirroredCounter('blog_post_cache_hits_total', 'GET /posts/{id} reads answered from memory.', () => stats().hits),
  )
  metrics.addCollector(
    mirroredCounter(
      'blog_post_cache_misses_total',
      'GET /posts/{id} reads that loaded the post from the database.',
      () => stats().misses,
    ),
  )
  metrics.addCollector(
    mirroredCounter(
      'blog_post_cache_evictions_total',
      'Cached posts pushed out to make room.',
      () => stats().evictions,
    ),
  )
  metrics.addCollector(mirroredGauge('blog_post_cache_entries', 'Posts in the cache.', () => stats().entries))
  metrics.addCollector(
    mirroredGauge('blog_post_cache_bytes', 'Estimated size of the cached posts.', () => stats().bytes),
  )
}
