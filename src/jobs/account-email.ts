// The account mails (email verification, password reset, notice of an email change) on one queue:
// each request enqueues one job under a fresh id, inside the transaction of the change that causes
// it where there is one, and the worker composes the mail (minting its token) and sends it.
// pg-boss hands a job to one worker at a time, across the fleet, and retries it with backoff while
// the mail server fails. A worker that dies mid-send leaves the job to expire and be retried: the
// mail may then go twice, but identical (same link: account-tokens.ts; same Message-ID: the job's
// id), so the receiving side can tell it is one message. The job's expiry is longer than a send may
// take (mailer.ts), so a slow send is never retried while it is still going out.
import type PgBoss from 'pg-boss'
import type { AccountEmailJob } from '../auth/account-email/account-email.ts'
import type { Logger } from '../log.ts'
import type { Mailer } from '../mail/mailer.ts'
import { ensureQueue, mailQueue, type Job, type JobServices, type JobsOptions } from './job.ts'
import { workConcurrently, type ConcurrentWorker } from './work-concurrently.ts'

export const ACCOUNT_EMAIL_QUEUE = 'account-email'

export async function createAccountEmailQueue(boss: PgBoss, options: { retryDelaySeconds?: number } = {}) {
  await ensureQueue(boss, mailQueue(ACCOUNT_EMAIL_QUEUE, options.retryDelaySeconds))
}

/** Enqueues one mail under `id`; pass a transaction's `db` so that it exists exactly when the change does. */
export async function enqueueAccountEmail(boss: PgBoss, id: string, job: AccountEmailJob, db?: PgBoss.Db) {
  await boss.send(ACCOUNT_EMAIL_QUEUE, job, { id, ...(db === undefined ? {} : { db }) })
}

/**
 * Mails in hand at once per instance: one at a time, a burst of free jobs (resets for unknown
 * emails) would delay everyone's mail, and a slow mail server would cap an instance at one mail
 * per round trip.
 */
export const ACCOUNT_EMAIL_CONCURRENCY = 20

/** The address a job's mail goes to (a reset goes to the account's address, which is the asked one normalised). */
const recipientOf = (job: AccountEmailJob) => (job.kind === 'email-changed' ? job.oldEmail : job.email)

export function startAccountEmailWorker(
  boss: PgBoss,
  services: Pick<JobServices, 'accountEmail' | 'recipientCap'>,
  mailer: Mailer,
  log: Logger,
  options: JobsOptions = {},
): ConcurrentWorker {
  const workOptions = {
    pollingIntervalSeconds: options.pollingIntervalSeconds ?? 2,
    concurrency: ACCOUNT_EMAIL_CONCURRENCY,
  }
  // Addresses stay out of the log.
  const attemptOf = (job: PgBoss.JobWithMetadata<AccountEmailJob>) => ({
    jobId: job.id,
    kind: job.data.kind,
    attempt: job.retryCount + 1,
    of: job.retryLimit + 1,
  })
  return workConcurrently<AccountEmailJob>(
    boss,
    ACCOUNT_EMAIL_QUEUE,
    workOptions,
    async (job) => {
      // Counted against the recipient's cap before composing, so that a skipped mail mints no token.
      const to = recipientOf(job.data)
      if (!(await services.recipientCap.take(to, job.data.kind))) {
        log.warn(attemptOf(job), 'account email skipped: its recipient had all the mails the hour allows')
        return
      }
      let message
      try {
        message = await services.accountEmail.compose(job.id, job.data)
        if (message !== null) await mailer.send(message)
      } catch (error) {
        // Not sent: the retry counts it again.
        await services.recipientCap.giveBack(to)
        throw error
      }
      if (message === null) {
        await services.recipientCap.giveBack(to)
        log.info(attemptOf(job), 'account email not needed (no such account, superseded, or nothing left to verify)')
        return
      }
      log.info(attemptOf(job), 'account email sent')
    },
    log,
    (job, error) => log.warn({ ...attemptOf(job), err: error }, 'account email not sent; it will be retried'),
  )
}

export const accountEmailJob: Job = {
  queue: ACCOUNT_EMAIL_QUEUE,
  create: createAccountEmailQueue,
  start: ({ boss, services, mailer, log, options }) => startAccountEmailWorker(boss, services, mailer, log, options),
}
