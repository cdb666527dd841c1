// listPosts' cache of public pages: its counters as Prometheus metrics, read from the cache at each scrape.
import type { ListCacheStats } from '../content/list-cache.ts'
import type { Metrics } from './metrics.ts'
import { mirroredCounter, mirroredGauge } from './mirrored.ts'

export function addListCacheMetrics(metrics: Metrics, stats: () => ListCacheStats) {
  metrics.addCollector(
    mirroredCounter('blog_list_cache_hits_total', 'Public listPosts pages answered from memory.', () => stats().hits),
  )
  metrics.addCollector(
    mirroredCounter(
      'blog_list_cache_misses_total',
      'Public listPosts pages loaded from the database.',
      () => stats().misses,
    ),
  )
  metrics.addCollector(
    mirroredCounter(
      'blog_list_cache_evictions_total',
      'Cached list pages pushed out to make room.',
      () => stats().evictions,
    ),
  )
  metrics.addCollector(mirroredGauge('blog_list_cache_entries', 'List pages in the cache.', () => stats().entries))
  metrics.addCollector(
    mirroredGauge('blog_list_cache_bytes', 'Estimated size of the cached list pages.', () => stats().bytes),
  )
}
