// Deletes objects in the bucket that no images row needs: what an upload PUT before its
// transaction rolled back (the store answered after STORAGE_TIMEOUT_MS, the database failed at
// commit). Daily, and at the end of media:migrate --to database. Nothing to do without a bucket.
import type PgBoss from 'pg-boss'
import type { Logger } from '../log.ts'
import type { Job } from './job.ts'
import { workConcurrently, type ConcurrentWorker } from './work-concurrently.ts'

export const SWEEP_BUCKET_QUEUE = 'sweep-bucket'

/**
 * Objects written more recently are left alone: an upload may still be about to insert their row.
 * Far past STORAGE_TIMEOUT_MS (at most 120 s), so only PUTs whose upload has long given up qualify.
 */
export const BUCKET_SWEEP_GRACE_MS = 60 * 60 * 1000

export async function createSweepBucketQueue(boss: PgBoss): Promise<void> {
  await boss.createQueue(SWEEP_BUCKET_QUEUE, {
    name: SWEEP_BUCKET_QUEUE,
    policy: 'stately',
    retryLimit: 5,
    retryDelay: 60,
    retryBackoff: true,
  })
  await boss.schedule(SWEEP_BUCKET_QUEUE, '23 4 * * *')
}

export function startSweepBucketWorker(
  boss: PgBoss,
  sweepBucket: (graceMs: number) => Promise<number>,
  log: Logger,
  options: { pollingIntervalSeconds?: number } = {},
): ConcurrentWorker {
  return workConcurrently(
    boss,
    SWEEP_BUCKET_QUEUE,
    { pollingIntervalSeconds: options.pollingIntervalSeconds ?? 2, concurrency: 1 },
    async () => {
      const deleted = await sweepBucket(BUCKET_SWEEP_GRACE_MS)
      if (deleted > 0) log.info({ deleted }, 'objects no image uses deleted from the bucket')
    },
    log,
  )
}

export const sweepBucketJob: Job = {
  queue: SWEEP_BUCKET_QUEUE,
  create: createSweepBucketQueue,
  start: ({ boss, services, log, options }) =>
    startSweepBucketWorker(boss, services.thumbnails.sweepBucket, log, options),
}
