// What a background job is to the app: a queue, created while starting instances take turns, and
// a worker, started once the services it calls exist. Each job's file exports one; jobs/index.ts lists them.
import type PgBoss from 'pg-boss'
import type { Logger } from '../log.ts'
import type { AccountCleanup, CleanupLimits } from '../auth/account-cleanup.ts'
import type { AccountEmail } from '../auth/account-email.ts'
import type { HtmlBackfill, HtmlBackfillLimits } from '../content/html/backfill.ts'
import type { Config } from '../config.ts'
import type { PostService } from '../content/posts.ts'
import type { ThumbnailService } from '../content/thumbnails.ts'
import type { Mailer } from '../mail/mailer.ts'
import type { WebhookDispatch } from '../webhooks/dispatch.ts'
import type { WebhookRetention } from '../webhooks/retention.ts'
import type { DeliveriesQueued } from '../webhooks/webhook-events.ts'

export interface JobsOptions {
  pollingIntervalSeconds?: number
  retryDelaySeconds?: number
  /** Batches of the account tables' clean-up (tests make them small). */
  accountCleanup?: Partial<CleanupLimits>
  /** Batches of the render-posts job (tests make them small). */
  htmlBackfill?: Partial<HtmlBackfillLimits>
  /** Seconds before a failed webhook delivery's first retry (tests make it 0). */
  webhookRetryDelaySeconds?: number
}

/** The service functions workers run: the composition root (services.ts) hands them over. */
export interface JobServices {
  config: Config
  posts: Pick<PostService, 'publishIfDue'>
  thumbnails: Pick<ThumbnailService, 'sweepUnusedImages'>
  accountCleanup: AccountCleanup
  /** Renders the html of posts that have none: the render-posts job. */
  postHtml: Pick<HtmlBackfill, 'renderPending'>
  /** Composes the account mails, minting their tokens (and the welcome mail's verification link). */
  accountEmail: Pick<AccountEmail, 'compose' | 'welcomeLines'>
  /** Makes one webhook delivery attempt: the deliver-webhook job. */
  webhookDispatch: Pick<WebhookDispatch, 'attempt'>
  /** Deletes old webhook events and attempts: the clean-up-webhooks job. */
  webhookRetention: WebhookRetention
  /** Says when a committed transaction queued deliveries: the deliver-webhook worker looks at once. */
  deliveriesQueued: Pick<DeliveriesQueued, 'onQueued'>
}

/** What a worker may use. */
export interface JobContext {
  boss: PgBoss
  services: JobServices
  mailer: Mailer
  log: Logger
  options: JobsOptions
  /** Registers what stops a worker pg-boss does not run itself: called before the queue stops. */
  onStop(stop: () => Promise<void>): void
}

export interface Job {
  queue: string
  /** Creates the queue (and its schedule); runs under the migration lock, see buildApp. */
  create(boss: PgBoss, options: JobsOptions): Promise<void>
  /** Starts the worker. */
  start(context: JobContext): Promise<unknown>
}

/**
 * Creates the queue, or brings an existing one to this policy: pg-boss's createQueue leaves an
 * existing queue as it was, so a policy changed here would otherwise never reach production.
 */
export async function ensureQueue(boss: PgBoss, queue: PgBoss.Queue): Promise<void> {
  await boss.createQueue(queue.name, queue)
  await boss.updateQueue(queue.name, queue)
}

/** The policy of a queue whose jobs send mail. */
export const mailQueue = (name: string, retryDelaySeconds = 5): PgBoss.Queue => ({
  name,
  policy: 'standard',
  // Eight retries with backoff span about half an hour of mail-server outage.
  retryLimit: 8,
  retryDelay: retryDelaySeconds,
  retryBackoff: true,
  // Longer than a send may take (mailer.ts cancels one after 60 s): a job that expires while its
  // mail is still going out would be retried and the recipient would get the mail twice.
  expireInSeconds: 120,
})

/**
 * Runs `handle` on one job. When it throws, `onFailed` hears why and the job is failed alone, so
 * pg-boss retries it and no other. True when the job was handled.
 */
export async function handleAlone<T extends object>(
  boss: PgBoss,
  queue: string,
  job: PgBoss.JobWithMetadata<T>,
  handle: (job: PgBoss.JobWithMetadata<T>) => Promise<void>,
  onFailed: (job: PgBoss.JobWithMetadata<T>, error: unknown) => void,
): Promise<boolean> {
  try {
    await handle(job)
    return true
  } catch (error) {
    onFailed(job, error)
    await boss.fail(queue, job.id, { message: error instanceof Error ? error.message : String(error) })
    return false
  }
}

/**
 * Works `queue` in batches of `batchSize` jobs, each handled alone and concurrently: `handle`
 * throwing fails (and so retries) its own job, not the batch. pg-boss 10 waits a whole polling
 * interval after every fetch, even one that found a full batch, so a backlog would drain at one
 * batch per interval; a full batch wakes the worker instead, which fetches again at once.
 */
export async function workInBatches<T extends object>(
  boss: PgBoss,
  queue: string,
  options: { batchSize: number; pollingIntervalSeconds: number },
  handle: (job: PgBoss.JobWithMetadata<T>) => Promise<void>,
  onFailed: (job: PgBoss.JobWithMetadata<T>, error: unknown) => void,
): Promise<string> {
  // Known once work() returns; its first batch cannot come sooner (a fetch is a database round trip).
  const worker: { id?: string } = {}
  worker.id = await boss.work<T>(queue, { ...options, includeMetadata: true }, async (jobs) => {
    // A job failed alone stays failed: the batch's completion afterwards touches only jobs still active.
    await Promise.all(jobs.map((job) => handleAlone(boss, queue, job, handle, onFailed)))
    if (jobs.length === options.batchSize && worker.id !== undefined) boss.notifyWorker(worker.id)
  })
  return worker.id
}
