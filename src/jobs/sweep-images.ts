// Deletes images no thumbnail uses any more. Writes that release images (a thumbnail replaced or
// removed, a post deleted) enqueue a sweep once they committed; an hourly schedule catches what a
// crash between commit and enqueue, or a cascade from elsewhere (a deleted user), left behind.
// A sweep looks at the whole table, so any one run cleans up after every earlier write, and an
// image shared by two posts stays while either uses it.
import type PgBoss from 'pg-boss'
import type { Logger } from '../log.ts'
import type { Job } from './job.ts'
import { workConcurrently, type ConcurrentWorker } from './work-concurrently.ts'

export const SWEEP_IMAGES_QUEUE = 'sweep-images'

export async function createSweepImagesQueue(boss: PgBoss): Promise<void> {
  // `stately`: at most one sweep waiting and one running, however many writes ask for one.
  await boss.createQueue(SWEEP_IMAGES_QUEUE, {
    name: SWEEP_IMAGES_QUEUE,
    policy: 'stately',
    retryLimit: 5,
    retryDelay: 10,
    retryBackoff: true,
  })
  await boss.schedule(SWEEP_IMAGES_QUEUE, '41 * * * *')
}

/** Asks for a sweep. A failure is logged, not thrown: the write it follows has committed. */
export async function enqueueImageSweep(boss: PgBoss, log: Logger): Promise<void> {
  try {
    await boss.send(SWEEP_IMAGES_QUEUE, {})
  } catch (error) {
    log.error({ err: error }, 'could not enqueue an image sweep; the hourly one will catch up')
  }
}

export function startSweepImagesWorker(
  boss: PgBoss,
  sweepOrphans: () => Promise<number>,
  log: Logger,
  options: { pollingIntervalSeconds?: number } = {},
): ConcurrentWorker {
  return workConcurrently(
    boss,
    SWEEP_IMAGES_QUEUE,
    { pollingIntervalSeconds: options.pollingIntervalSeconds ?? 2, concurrency: 1 },
    async () => {
      const deleted = await sweepOrphans()
      if (deleted > 0) log.info({ deleted }, 'unused images deleted')
    },
    log,
  )
}

export const sweepImagesJob: Job = {
  queue: SWEEP_IMAGES_QUEUE,
  create: createSweepImagesQueue,
  start: ({ boss, services, log, options }) =>
    startSweepImagesWorker(boss, services.thumbnails.sweepUnusedImages, log, options),
}
