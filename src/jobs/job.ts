// What a background job is to the app: a queue, created while starting instances take turns, and
// a worker, started once the services it calls exist. Each job's file exports one; jobs/index.ts lists them.
import type PgBoss from 'pg-boss'
import type { Logger } from '../log.ts'
import type { AccountCleanup, CleanupLimits } from '../auth/account-cleanup.ts'
import type { AccountEmail } from '../auth/account-email/account-email.ts'
import type { HtmlBackfill, HtmlBackfillLimits } from '../content/html/backfill.ts'
import type { Config } from '../config.ts'
import type { PostService } from '../content/posts/posts.ts'
import type { ThumbnailService } from '../content/thumbnails/thumbnails.ts'
import type { Mailer } from '../mail/mailer.ts'
import type { RecipientCap } from '../mail/recipient-cap.ts'
import type { WebhookDispatch } from '../webhooks/dispatch.ts'
import type { WebhookRetention } from '../webhooks/retention.ts'
import type { DeliveriesQueued } from '../webhooks/webhook-events.ts'
import type { ConcurrentWorker } from './work-concurrently.ts'

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
  thumbnails: Pick<ThumbnailService, 'sweepUnusedImages' | 'sweepBucket'>
  accountCleanup: AccountCleanup
  /** Renders the html of posts that have none: the render-posts job. */
  postHtml: Pick<HtmlBackfill, 'renderPending'>
  /** Composes the account mails, minting their tokens (and the welcome mail's verification link). */
  accountEmail: Pick<AccountEmail, 'compose' | 'welcomeLines'>
  /** Every mail's recipient cap, checked just before a mail is composed and sent. */
  recipientCap: Pick<RecipientCap, 'take' | 'giveBack'>
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
}

export interface Job {
  queue: string
  /** Creates the queue (and its schedule); runs under the migration lock, see buildApp. */
  create(boss: PgBoss, options: JobsOptions): Promise<void>
  /** Starts the worker; startJobs stops it before the queue stops. */
  start(context: JobContext): ConcurrentWorker
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
