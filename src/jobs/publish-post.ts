// Scheduled publication. Scheduling a post enqueues a job due at its publishedAt, inside the
// write's transaction. The job publishes the post only if it is still scheduled and due, so a
// rescheduled, unscheduled or deleted post makes its old job a no-op; jobs live in the database,
// so a restart in between loses nothing.
import type PgBoss from 'pg-boss'
import type { FastifyBaseLogger } from 'fastify'

export const PUBLISH_POST_QUEUE = 'publish-post'

interface PublishPostJob {
  postId: string
}

export async function createPublishPostQueue(boss: PgBoss): Promise<void> {
  await boss.createQueue(PUBLISH_POST_QUEUE, { name: PUBLISH_POST_QUEUE, policy: 'standard', retryLimit: 10, retryDelay: 5, retryBackoff: true })
}

export async function enqueuePublication(boss: PgBoss, postId: string, at: Date, db: PgBoss.Db): Promise<void> {
  await boss.send(PUBLISH_POST_QUEUE, { postId } satisfies PublishPostJob, { startAfter: at, db })
}

export async function startPublishPostWorker(
  boss: PgBoss,
  publishIfDue: (postId: string) => Promise<boolean>,
  log: FastifyBaseLogger,
  options: { pollingIntervalSeconds?: number } = {},
): Promise<string> {
  return boss.work<PublishPostJob>(PUBLISH_POST_QUEUE, { pollingIntervalSeconds: options.pollingIntervalSeconds ?? 2, batchSize: 10 }, async (jobs) => {
    for (const job of jobs) {
      const published = await publishIfDue(job.data.postId)
      log.info({ postId: job.data.postId, published }, published ? 'scheduled post published' : 'publication no longer due')
    }
  })
}
