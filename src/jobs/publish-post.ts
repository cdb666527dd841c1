// Scheduled publication. Scheduling a post enqueues a job due at its publishedAt, inside the
// write's transaction, and the post keeps the job's id; rescheduling, unscheduling or deleting the
// post cancels that job in the same transaction. The job still publishes the post only if it is
// scheduled and due, in case a job slips through (one already fetched when it was cancelled).
// Jobs live in the database, so a restart in between loses nothing.
import type PgBoss from 'pg-boss'
import type { Logger } from '../log.ts'
import type { Job } from './job.ts'
import { workConcurrently, type ConcurrentWorker } from './work-concurrently.ts'

export const PUBLISH_POST_QUEUE = 'publish-post'

interface PublishPostJob {
  postId: string
}

export async function createPublishPostQueue(boss: PgBoss): Promise<void> {
  await boss.createQueue(PUBLISH_POST_QUEUE, {
    name: PUBLISH_POST_QUEUE,
    policy: 'standard',
    retryLimit: 10,
    retryDelay: 5,
    retryBackoff: true,
  })
}

/** Enqueues the post's publication at `at`; the job's id, for cancelPublication. */
export async function enqueuePublication(boss: PgBoss, postId: string, at: Date, db: PgBoss.Db): Promise<string> {
  const jobId = await boss.send(PUBLISH_POST_QUEUE, { postId } satisfies PublishPostJob, { startAfter: at, db })
  // null only when a singleton or throttling option refuses the job; this queue uses none.
  if (jobId === null) throw new Error('pg-boss refused the publication job')
  return jobId
}

/** Cancels a publication job that has not run yet (one that ran or was cancelled stays as it is). */
export async function cancelPublication(boss: PgBoss, jobId: string, db: PgBoss.Db): Promise<void> {
  await boss.cancel(PUBLISH_POST_QUEUE, jobId, { db })
}

export function startPublishPostWorker(
  boss: PgBoss,
  publishIfDue: (postId: string) => Promise<boolean>,
  log: Logger,
  options: { pollingIntervalSeconds?: number } = {},
): ConcurrentWorker {
  return workConcurrently<PublishPostJob>(
    boss,
    PUBLISH_POST_QUEUE,
    { pollingIntervalSeconds: options.pollingIntervalSeconds ?? 2, concurrency: 10 },
    async (job) => {
      const published = await publishIfDue(job.data.postId)
      log.info(
        { postId: job.data.postId, published },
        published ? 'scheduled post published' : 'publication no longer due',
      )
    },
    log,
  )
}

export const publishPostJob: Job = {
  queue: PUBLISH_POST_QUEUE,
  create: createPublishPostQueue,
  start: ({ boss, services, log, options }) => startPublishPostWorker(boss, services.posts.publishIfDue, log, options),
}
