// The welcome email sent after registration, which also carries the link that verifies the new
// address (one mail, not two, at sign-up). Registration only enqueues it (inside its own
// transaction, with the user's id as the job id); a worker sends it later and pg-boss retries it,
// so a slow or failing mail server never slows down or fails a registration.
import type PgBoss from 'pg-boss'
import type { LinkRequest } from '../auth/account-email/account-email.ts'
import type { Logger } from '../log.ts'
import type { Mailer, MailMessage } from '../mail/mailer.ts'
import { ensureQueue, mailQueue, type Job, type JobServices } from './job.ts'
import { workConcurrently, type ConcurrentWorker } from './work-concurrently.ts'

export const WELCOME_EMAIL_QUEUE = 'welcome-email'

export interface WelcomeEmailJob {
  userId: string
  email: string
  name: string
  /** The verification link's request; absent in jobs queued by releases before email verification. */
  verification?: LinkRequest
}

export interface WelcomeEmailQueueOptions {
  /** Seconds before the first retry; later ones back off exponentially (about 5 s … 20 min). */
  retryDelaySeconds?: number
}

export interface WelcomeEmailWorkerOptions {
  /** How often an idle worker looks for jobs; pg-boss allows 0.5 at the least. */
  pollingIntervalSeconds?: number
}

export async function createWelcomeEmailQueue(boss: PgBoss, options: WelcomeEmailQueueOptions = {}): Promise<void> {
  await ensureQueue(boss, mailQueue(WELCOME_EMAIL_QUEUE, options.retryDelaySeconds))
}

/**
 * Enqueues the welcome email. The job id is the user's id, so a second enqueue for the same user
 * is ignored by pg-boss; pass the registration transaction's `db` so the job exists exactly when
 * the user does. The queue must exist (createJobQueues makes it at start-up): pg-boss drops jobs for a missing queue.
 */
export async function enqueueWelcomeEmail(boss: PgBoss, job: WelcomeEmailJob, db?: PgBoss.Db): Promise<void> {
  await boss.send(WELCOME_EMAIL_QUEUE, job, { id: job.userId, ...(db === undefined ? {} : { db }) })
}

export function welcomeMessage(job: WelcomeEmailJob, verificationLines: string[] = []): MailMessage {
  return {
    id: job.userId,
    to: job.email,
    subject: 'Welcome to the blog',
    text: [
      // Not the display name: whoever registered chose it, and nobody has yet shown that this
      // address belongs to them, so it would be their text in a mail from us to a stranger.
      'Hello,',
      '',
      'welcome aboard! Your account is ready: sign in to start writing posts and joining the conversation.',
      ...verificationLines,
      '',
      'Happy blogging!',
    ].join('\n'),
  }
}

export function startWelcomeEmailWorker(
  boss: PgBoss,
  services: Pick<JobServices, 'accountEmail' | 'recipientCap'>,
  mailer: Mailer,
  log: Logger,
  options: WelcomeEmailWorkerOptions = {},
): ConcurrentWorker {
  const workOptions = { pollingIntervalSeconds: options.pollingIntervalSeconds ?? 2, concurrency: 1 }
  // The address stays out of the log.
  const attemptOf = (job: PgBoss.JobWithMetadata<WelcomeEmailJob>) => ({
    jobId: job.id,
    userId: job.data.userId,
    attempt: job.retryCount + 1,
    of: job.retryLimit + 1,
  })
  return workConcurrently<WelcomeEmailJob>(
    boss,
    WELCOME_EMAIL_QUEUE,
    workOptions,
    async (job) => {
      const { userId, email, verification } = job.data
      // Counted against the address before a token is minted: registering at someone's address,
      // deleting the account and registering again must not mail them past their cap.
      if (!(await services.recipientCap.take(email, 'welcome'))) {
        log.warn(attemptOf(job), 'welcome email skipped: its recipient had all the mails the hour allows')
        return
      }
      try {
        // Minted once (a retry finds the token in place and mails the same link).
        const lines = await services.accountEmail.welcomeLines(userId, email, verification)
        await mailer.send(welcomeMessage(job.data, lines))
      } catch (error) {
        // Not sent: the retry counts it again.
        await services.recipientCap.giveBack(email)
        throw error
      }
      log.info(attemptOf(job), 'welcome email sent')
    },
    log,
    (job, error) => log.warn({ ...attemptOf(job), err: error }, 'welcome email not sent; it will be retried'),
  )
}

export const welcomeEmailJob: Job = {
  queue: WELCOME_EMAIL_QUEUE,
  create: createWelcomeEmailQueue,
  start: ({ boss, services, mailer, log, options }) => startWelcomeEmailWorker(boss, services, mailer, log, options),
}
