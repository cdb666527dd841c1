// The background jobs on the app's queue, one entry each: a new job is a file of its own and a line
// in JOBS, which creates its queue, starts and stops its worker, and measures its queue (metrics.ts).
import { closeTimeoutMs } from '../config/listeners.ts'
import type { Logger } from '../log.ts'
import { createMailer } from '../mail/mailer.ts'
import type { Queue } from '../queue/queue.ts'
import { accountEmailJob } from './account-email.ts'
import { cleanUpAccountsJob } from './clean-up-accounts.ts'
import { cleanUpWebhooksJob } from './clean-up-webhooks.ts'
import { deliverWebhookJob } from './deliver-webhook.ts'
import type { Job, JobServices, JobsOptions } from './job.ts'
import type { ConcurrentWorker } from './work-concurrently.ts'
import { publishPostJob } from './publish-post.ts'
import { renderPostsJob } from './render-posts.ts'
import { startSendScheduledWorker } from './send-scheduled.ts'
import { sweepBucketJob } from './sweep-bucket.ts'
import { sweepImagesJob } from './sweep-images.ts'
import { welcomeEmailJob } from './welcome-email.ts'

export type { JobsOptions } from './job.ts'

export const JOBS: readonly Job[] = [
  welcomeEmailJob,
  accountEmailJob,
  publishPostJob,
  sweepImagesJob,
  sweepBucketJob,
  cleanUpAccountsJob,
  renderPostsJob,
  deliverWebhookJob,
  cleanUpWebhooksJob,
]

export const JOB_QUEUES = JOBS.map((job) => job.queue)

/** Creates every job's queue. Call once the queue has started, under the migration lock. */
export async function createJobQueues(queue: Queue, options: JobsOptions = {}): Promise<void> {
  for (const job of JOBS) await job.create(queue.boss, options)
}

export interface Jobs {
  /**
   * Takes no more jobs and lets those running finish, up to the shutdown timeout from this call;
   * call it when shutdown begins. Never rejects; safe to call twice.
   */
  stopWorkers(): Promise<void>
  /** Stops the workers (if not yet begun), then the queue, then the mailer; safe to call twice. */
  stop(): Promise<void>
}

/** Starts every job's worker, the one that queues scheduled jobs (send-scheduled.ts), and the mailer. */
export function startJobs(queue: Queue, services: JobServices, log: Logger, options: JobsOptions = {}): Jobs {
  const mailer = createMailer(services.config, log)
  const workers: ConcurrentWorker[] = JOBS.map((job) => job.start({ boss: queue.boss, services, mailer, log, options }))
  workers.push(startSendScheduledWorker(queue.boss, log))
  // The workers stop first, waiting up to the shutdown timeout for the jobs in hand (a mail being
  // sent among them) to be completed or failed through the queue; then the queue, then the mailer.
  const timeoutMs = closeTimeoutMs(services.config)
  let workersStopping: Promise<unknown> | undefined
  let stopping: Promise<void> | undefined
  const stopWorkers = async () => {
    await (workersStopping ??= Promise.all(workers.map((worker) => worker.stop(timeoutMs))))
  }
  const stop = () =>
    (stopping ??= stopWorkers()
      .then(() => queue.stop())
      .then(() => mailer.close()))
  return { stopWorkers, stop }
}
