// Starts the background jobs on the app's queue: the queues they need, the mailer, the workers.
// buildApp calls it once the queue has started; stop() is called on close.
import type PgBoss from 'pg-boss'
import type { Logger } from '../log.ts'
import type { CleanupLimits, CleanupResult } from '../auth/account-cleanup.ts'
import type { Config } from '../config.ts'
import { createMailer, type Mailer } from '../mail/mailer.ts'
import type { Queue } from '../queue/queue.ts'
import { CLEAN_UP_ACCOUNTS_QUEUE, createCleanUpAccountsQueue, startCleanUpAccountsWorker } from './clean-up-accounts.ts'
import { createPublishPostQueue, PUBLISH_POST_QUEUE, startPublishPostWorker } from './publish-post.ts'
import { createSweepImagesQueue, startSweepImagesWorker, SWEEP_IMAGES_QUEUE } from './sweep-images.ts'
import { createWelcomeEmailQueue, startWelcomeEmailWorker, WELCOME_EMAIL_QUEUE } from './welcome-email.ts'

export interface JobsOptions {
  pollingIntervalSeconds?: number
  retryDelaySeconds?: number
  /** Batches of the account tables' clean-up (tests make them small). */
  accountCleanup?: Partial<CleanupLimits>
}

export interface Jobs {
  mailer: Mailer
  /** Stops the workers and closes the mailer; safe to call twice and after the queue stopped. */
  stop(): Promise<void>
}

/** Creates the queues the jobs need, the mailer, and the workers. Call once, after the queue started. */
export async function startJobs(
  services: {
    queue: Queue
    config: Config
    publishIfDue: (postId: string) => Promise<boolean>
    sweepImages: () => Promise<number>
    cleanUpAccounts: (limits: CleanupLimits) => Promise<CleanupResult>
  },
  log: Logger,
  options: JobsOptions = {},
): Promise<Jobs> {
  const { boss } = services.queue
  await createPublishPostQueue(boss)
  await startPublishPostWorker(boss, services.publishIfDue, log, options)
  await createSweepImagesQueue(boss)
  await startSweepImagesWorker(boss, services.sweepImages, log, options)
  await createCleanUpAccountsQueue(boss)
  await startCleanUpAccountsWorker(boss, services.cleanUpAccounts, log, options)
  return start(boss, services.config, log, options)
}

async function start(boss: PgBoss, config: Config, log: Logger, options: JobsOptions): Promise<Jobs> {
  await createWelcomeEmailQueue(boss, options)
  const mailer = createMailer(config, log)
  await startWelcomeEmailWorker(boss, mailer, log, options)
  let stopping: Promise<void> | undefined
  return {
    mailer,
    stop: () =>
      (stopping ??= (async () => {
        // A no-op once the queue has stopped, which already stopped (and waited for) its workers.
        await boss.offWork(WELCOME_EMAIL_QUEUE)
        await boss.offWork(PUBLISH_POST_QUEUE)
        await boss.offWork(SWEEP_IMAGES_QUEUE)
        await boss.offWork(CLEAN_UP_ACCOUNTS_QUEUE)
        await mailer.close()
      })()),
  }
}
