// An event exists exactly when its change commits: a refused write queues nothing, neither the
// event nor a delivery job.
import t from 'tap'
import { registerAdmin, registerUser } from '../helpers/accounts.ts'
import { build, usingPostgres } from '../helpers/build.ts'
import { createComment } from '../helpers/content.ts'
import { createScratchDatabase } from '../helpers/postgres.ts'
import { createPost } from '../helpers/posts.ts'
import { createWebhook, webhookTraces } from '../helpers/webhooks.ts'
import { makePostStore } from '../../src/content/posts/post-store.ts'
import { enqueueWebhookDelivery } from '../../src/jobs/deliver-webhook.ts'
import { makeWebhookEvents } from '../../src/webhooks/webhook-events.ts'

const ALL = ['post.published', 'post.updated', 'post.deleted', 'comment.created', 'user.registered']

t.test('refused writes queue no event and no delivery; the same writes accepted queue one each', async (t) => {
  const env: Record<string, string> = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' }
  if (usingPostgres) env.DATABASE_URL = await createScratchDatabase(t, 'webhook_transactions')
  // Workers poll once a minute: jobs stay queued where the test can count them.
  const server = await build(t, env, { jobs: { pollingIntervalSeconds: 60 } })
  const admin = await registerAdmin(server)
  const author = await registerUser(server)
  const other = await registerUser(server)
  const post = await createPost(server, author, { status: 'published' })
  const draft = await createPost(server, author)
  // Endpoints on two URLs: each event makes two delivery jobs.
  await createWebhook(server, admin, { url: 'http://127.0.0.1:9/a', events: ALL })
  await createWebhook(server, admin, { url: 'http://127.0.0.1:9/b', events: ALL })
  const before = await webhookTraces(server)
  t.same(before, { events: 0, jobs: 0 })

  const refusals = [
    {
      what: 'an edit under a stale If-Match (412)',
      status: 412,
      request: {
        method: 'PATCH',
        url: `/posts/${post.id}`,
        headers: { ...author.auth, 'if-match': '"stale"' },
        payload: { title: 'x' },
      },
    },
    {
      what: "an edit of someone else's post (403)",
      status: 403,
      request: { method: 'PATCH', url: `/posts/${post.id}`, headers: other.auth, payload: { title: 'x' } },
    },
    {
      what: 'an edit to a slug another post has (409)',
      status: 409,
      request: {
        method: 'PATCH',
        url: `/posts/${post.id}`,
        headers: author.auth,
        payload: { slug: draft.slug as string },
      },
    },
    {
      what: 'a delete under a stale If-Match (412)',
      status: 412,
      request: { method: 'DELETE', url: `/posts/${post.id}`, headers: { ...author.auth, 'if-match': '"stale"' } },
    },
    {
      what: 'a post in an unknown category (422)',
      status: 422,
      request: {
        method: 'POST',
        url: '/posts',
        headers: author.auth,
        payload: { title: 't', body: 'b', status: 'published', categoryIds: ['0192f7e1-4c5d-7e6f-8a7b-000000000000'] },
      },
    },
    {
      what: 'a comment on a draft (404 for a stranger)',
      status: 404,
      request: { method: 'POST', url: `/posts/${draft.id}/comments`, headers: other.auth, payload: { body: 'c' } },
    },
    {
      what: 'a registration with a taken email (409)',
      status: 409,
      request: {
        method: 'POST',
        url: '/register',
        payload: { email: other.email, password: 'pw-0123456789', name: 'Dup' },
      },
    },
  ] as const
  for (const { what, status, request } of refusals) {
    t.equal((await server.inject(request)).statusCode, status, what)
    t.same(await webhookTraces(server), before, `${what}: nothing queued`)
  }

  // The same kinds of write, accepted: one event each, two jobs each.
  await server.inject({ method: 'PATCH', url: `/posts/${post.id}`, headers: author.auth, payload: { title: 'y' } })
  t.same(await webhookTraces(server), { events: 1, jobs: 2 }, 'an edit: one event, a job per endpoint')
  await createComment(server, other, post.id)
  await registerUser(server)
  await server.inject({ method: 'DELETE', url: `/posts/${post.id}`, headers: author.auth })
  await createPost(server, author, { status: 'published' })
  t.same(await webhookTraces(server), { events: 5, jobs: 10 }, 'a comment, a registration, a delete, a publication')
  const jobIds = await server.services.database.prisma.$queryRaw<{ n: bigint }[]>`
    select count(distinct id) as n from pgboss.job where name = 'deliver-webhook'`
  t.equal(Number(jobIds[0]!.n), 10, 'one job per (event, endpoint)')
})

t.test('an event emitted in a write that then rolls back leaves neither the event nor its jobs', async (t) => {
  const env: Record<string, string> = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' }
  if (usingPostgres) env.DATABASE_URL = await createScratchDatabase(t, 'webhook_rollback')
  const server = await build(t, env, { jobs: { pollingIntervalSeconds: 60 } })
  const admin = await registerAdmin(server)
  await createWebhook(server, admin, { url: 'http://127.0.0.1:9/a', events: ['post.updated'] })
  // The write path's own parts: the post store's transaction, and the events as src/services/webhooks.ts makes them.
  const store = makePostStore(server.services.database.prisma, {
    imageUrls: server.services.imageUrls,
    storeImages: server.services.thumbnails.storeImages,
  })
  const events = makeWebhookEvents((job, id, sql) => enqueueWebhookDelivery(server.services.queue.boss, job, id, sql))
  const failure = new Error('refused after the event was queued')
  await t.rejects(
    store.transaction(async (write) => {
      await events.emit(write.sql, 'post.updated', { id: 'x' })
      t.same(
        (await write.sql("select count(*)::int as n from pgboss.job where name = 'deliver-webhook'")).rows,
        [{ n: 1 }],
        'the job exists inside the transaction',
      )
      throw failure
    }),
    failure,
  )
  t.same(await webhookTraces(server), { events: 0, jobs: 0 }, 'gone with the rollback')
  await store.transaction((write) => events.emit(write.sql, 'post.updated', { id: 'x' }))
  t.same(await webhookTraces(server), { events: 1, jobs: 1 }, 'kept with a commit')
})
