// Posts made the way clients make them: over HTTP.
import type { FastifyInstance } from 'fastify'
import { PUBLISH_POST_QUEUE } from '../../src/jobs/publish-post.ts'
import type { Account } from './accounts.ts'

export interface CreatedPost {
  id: string
  status: string
  [key: string]: unknown
}

export async function createPost(
  app: FastifyInstance,
  author: Account,
  payload: Record<string, unknown> = {},
): Promise<CreatedPost> {
  const response = await app.inject({
    method: 'POST',
    url: '/posts',
    headers: author.auth,
    payload: { title: 'A title', body: 'Some **Markdown** body.', ...payload },
  })
  if (response.statusCode !== 201) throw new Error(`createPost: ${response.statusCode} ${response.body}`)
  return response.json().data
}

/** Every publication job ever enqueued for the post, oldest first, as pg-boss reports it. */
export async function publicationJobsOf(app: FastifyInstance, postId: string) {
  const rows = await app.services.database.prisma.$queryRaw<{ id: string }[]>`
    select id from pgboss.job where name = ${PUBLISH_POST_QUEUE} and data->>'postId' = ${postId} order by created_on, id`
  return Promise.all(
    rows.map(async ({ id }) => {
      const job = await app.services.queue.boss.getJobById(PUBLISH_POST_QUEUE, id)
      return { id, state: job!.state, startAfter: new Date(job!.startAfter).toISOString() }
    }),
  )
}

/**
 * Brings a scheduled post's time to now, as the clock reaching it would: its publishedAt and the
 * start of its live publication job. Tests schedule an hour ahead, so that no request, however
 * slow, outlasts the time left, and call this once the post is to publish itself.
 */
export async function makeDue(app: FastifyInstance, postId: string): Promise<void> {
  const { prisma } = app.services.database
  const updated = await prisma.$transaction([
    prisma.$executeRaw`update posts set published_at = now() where id = ${postId}::uuid and status = 'scheduled'`,
    prisma.$executeRaw`
      update pgboss.job set start_after = now()
      where name = ${PUBLISH_POST_QUEUE} and data->>'postId' = ${postId} and state in ('created', 'retry')`,
  ])
  // Anything else would leave the test waiting for a publication that cannot come.
  if (updated.join() !== '1,1') throw new Error(`makeDue: not one scheduled post with one live job (${updated.join()})`)
}
