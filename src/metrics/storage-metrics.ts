// The object store as Prometheus metrics, read at each scrape from what the instance already knows
// (src/storage/storage-health.ts: no call to the store per scrape): whether it answers, and the
// uploads waiting for it (src/storage/upload-gate.ts). Alert on blog_storage_up == 0: /health
// reports the store without failing readiness for it.
import { Gauge } from 'prom-client'
import type { Storage } from '../storage/storage.ts'
import type { Metrics } from './metrics.ts'
import { mirroredCounter, mirroredGauge } from './mirrored.ts'

export function addStorageMetrics(metrics: Metrics, storage: Pick<Storage, 'health' | 'uploads'>) {
  const { health, uploads } = storage
  // Without a bucket there is no object store to report.
  if (health === null) return
  metrics.addCollector(
    new Gauge({
      name: 'blog_storage_up',
      help: 'Whether the last call to the object store (a request’s or the background check’s) succeeded: 1, or failed: 0.',
      registers: [],
      collect() {
        this.reset()
        // Left out until the first call has ended (just started).
        if (health.status !== 'unknown') this.set(health.status === 'up' ? 1 : 0)
      },
    }),
  )
  metrics.addCollector(
    mirroredGauge(
      'blog_storage_uploads_active',
      'Uploads calling the object store now, each holding a database connection (at most STORAGE_UPLOADS_MAX).',
      () => uploads.stats().active,
    ),
  )
  metrics.addCollector(
    mirroredGauge(
      'blog_storage_uploads_waiting',
      'Uploads waiting for a turn to call the object store (holding no connection).',
      () => uploads.stats().waiting,
    ),
  )
  metrics.addCollector(
    mirroredCounter(
      'blog_storage_uploads_refused_total',
      'Uploads answered 503 before calling the object store: it was failing, or no turn came within STORAGE_TIMEOUT_MS.',
      () => uploads.stats().refused,
    ),
  )
}
