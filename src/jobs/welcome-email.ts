// The welcome email sent after registration. Registration only enqueues it (inside its own
// transaction, with the user's id as the job id); a worker sends it later and pg-boss retries it,
// so a slow or failing mail server never slows down or fails a registration.
import type PgBoss from 'pg-boss'
import type { Logger } from '../log.ts'
import type { Mailer, MailMessage } from '../mail/mailer.ts'
import type { Job } from './job.ts'

export const WELCOME_EMAIL_QUEUE = 'welcome-email'

export interface WelcomeEmailJob {
  userId: string
  email: string
  name: string
}

export interface WelcomeEmailQueueOptions {
  /** Seconds before the first retry; later ones back off exponentially (about 5 s … 20 min). */
  retryDelaySeconds?: number
}

export interface WelcomeEmailWorkerOptions {
  /** How often an idle worker looks for jobs; pg-boss allows 0.5 at the least. */
  pollingIntervalSeconds?: number
}

/**
 * Creates the queue, or brings an existing one to this policy: pg-boss's createQueue leaves an
 * existing queue as it was, so a policy changed here would otherwise never reach production.
 */
export async function createWelcomeEmailQueue(boss: PgBoss, options: WelcomeEmailQueueOptions = {}): Promise<void> {
  const queue: PgBoss.Queue = {
    name: WELCOME_EMAIL_QUEUE,
    policy: 'standard',
    // Eight retries with backoff span about half an hour of mail-server outage.
    retryLimit: 8,
    retryDelay: options.retryDelaySeconds ?? 5,
    retryBackoff: true,
    // Longer than a send may take (mailer.ts cancels one after 60 s): a job that expires while its
    // mail is still going out would be retried and the user would get the mail twice.
    expireInSeconds: 120,
  }
  await boss.createQueue(WELCOME_EMAIL_QUEUE, queue)
  await boss.updateQueue(WELCOME_EMAIL_QUEUE, queue)
}

/**
 * Enqueues the welcome email. The job id is the user's id, so a second enqueue for the same user
 * is ignored by pg-boss; pass the registration transaction's `db` so the job exists exactly when
 * the user does. The queue must exist (createJobQueues makes it at start-up): pg-boss drops jobs for a missing queue.
 */
export async function enqueueWelcomeEmail(boss: PgBoss, job: WelcomeEmailJob, db?: PgBoss.Db): Promise<void> {
  await boss.send(WELCOME_EMAIL_QUEUE, job, { id: job.userId, ...(db === undefined ? {} : { db }) })
}

export function welcomeMessage(job: WelcomeEmailJob): MailMessage {
  return {
    id: job.userId,
    to: job.email,
    subject: 'Welcome to the blog',
    text: [
      `Hello ${job.name},`,
      '',
      'welcome aboard! Your account is ready: sign in to start writing posts and joining the conversation.',
      '',
      'Happy blogging!',
    ].join('\n'),
  }
}

/** Starts the worker; it returns pg-boss's worker id. */
export async function startWelcomeEmailWorker(
  boss: PgBoss,
  mailer: Mailer,
  log: Logger,
  options: WelcomeEmailWorkerOptions = {},
): Promise<string> {
  const workOptions = {
    pollingIntervalSeconds: options.pollingIntervalSeconds ?? 2,
    batchSize: 1,
    includeMetadata: true as const,
  }
  // pg-boss 10 hands over an array of jobs; with batchSize 1 a failing mail retries only itself.
  return boss.work<WelcomeEmailJob>(WELCOME_EMAIL_QUEUE, workOptions, async (jobs) => {
    for (const job of jobs) {
      const attempt = { jobId: job.id, userId: job.data.userId, attempt: job.retryCount + 1, of: job.retryLimit + 1 }
      try {
        await mailer.send(welcomeMessage(job.data))
      } catch (error) {
        // Thrown on so pg-boss fails the job and retries it with backoff. The address stays out of the log.
        log.warn({ ...attempt, err: error }, 'welcome email not sent; it will be retried')
        throw error
      }
      log.info(attempt, 'welcome email sent')
    }
  })
}

export const welcomeEmailJob: Job = {
  queue: WELCOME_EMAIL_QUEUE,
  create: createWelcomeEmailQueue,
  start: ({ boss, mailer, log, options }) => startWelcomeEmailWorker(boss, mailer, log, options),
}
