// The background jobs on the app's queue, one entry each: a new job is a file of its own and a line
// in JOBS, which creates its queue, starts and stops its worker, and measures its queue (metrics.ts).
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
import { sweepImagesJob } from './sweep-images.ts'
import { welcomeEmailJob } from './welcome-email.ts'

export type { JobsOptions } from './job.ts'

export const JOBS: readonly Job[] = [
  welcomeEmailJob,
  accountEmailJob,
  publishPostJob,
  sweepImagesJob,
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
  /** Lets the jobs running finish (up to the shutdown timeout), then closes the mailer; safe to call twice. */
  stop(): Promise<void>
}

/** Starts every job's worker, the one that queues scheduled jobs (send-scheduled.ts), and the mailer. */
export async function startJobs(
  queue: Queue,
  services: JobServices,
  log: Logger,
  options: JobsOptions = {},
): Promise<Jobs> {
  const mailer = createMailer(services.config, log)
  let stopping: Promise<void> | undefined
  const workers: ConcurrentWorker[] = []
  // The workers stop first, waiting up to the shutdown timeout for the jobs in hand (a mail being
  // sent among them) to be completed or failed through the queue; then the queue, then the mailer.
  const timeoutMs = Math.max(services.config.shutdownTimeoutMs, 1000)
  const stop = () =>
    (stopping ??= Promise.all(workers.map((worker) => worker.stop(timeoutMs)))
      .then(() => queue.stop())
      .then(() => mailer.close()))
  for (const job of JOBS) workers.push(job.start({ boss: queue.boss, services, mailer, log, options }))
  workers.push(await startSendScheduledWorker(queue.boss, log))
  return { stop }
}
