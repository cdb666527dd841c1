// The image work pool's counters as Prometheus metrics, read from the pool at each scrape: how
// busy decoding is, how many uploads wait, and how many were turned away with 503.
import type { WorkPoolStats } from '../images/work-pool.ts'
import type { Metrics } from './metrics.ts'
import { mirroredCounter, mirroredGauge } from './mirrored.ts'

export function addImageWorkMetrics(metrics: Metrics, stats: () => WorkPoolStats) {
  metrics.addCollector(
    mirroredGauge(
      'blog_image_jobs_active',
      'Images being decoded and encoded now (at most IMAGE_CONCURRENCY).',
      () => stats().active,
    ),
  )
  metrics.addCollector(
    mirroredGauge(
      'blog_image_jobs_queued',
      'Uploads waiting for a turn to be decoded (at most IMAGE_QUEUE_MAX).',
      () => stats().queued,
    ),
  )
  metrics.addCollector(
    mirroredGauge(
      'blog_image_jobs_peak_active',
      'The most images ever decoded at once by this instance.',
      () => stats().peakActive,
    ),
  )
  metrics.addCollector(
    mirroredCounter(
      'blog_image_jobs_completed_total',
      'Image jobs finished, successfully or not.',
      () => stats().completed,
    ),
  )
  metrics.addCollector(
    mirroredCounter(
      'blog_image_jobs_refused_total',
      'Uploads answered 503 because the image work queue was full.',
      () => stats().refused,
    ),
  )
}
