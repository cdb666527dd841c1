// Deliveries as receivers see them: signed per Standard Webhooks (checked with the standardwebhooks
// package, an implementation independent of ours), retried on failure with the same webhook-id,
// every attempt recorded, and each event's data as the API's own read of the resource.
import type { FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import { Webhook } from 'standardwebhooks'
import { registerAdmin, registerUser, type Account } from '../helpers/accounts.ts'
import { build, usingPostgres } from '../helpers/build.ts'
import { createComment } from '../helpers/content.ts'
import { eventually, solidImage, uploadThumbnail } from '../helpers/images.ts'
import { createScratchDatabase } from '../helpers/postgres.ts'
import { createPost, makeDue } from '../helpers/posts.ts'
import { startReceiver, type Received } from '../helpers/webhook-receiver.ts'
import { createWebhook, deliveriesOf } from '../helpers/webhooks.ts'
import { createMedia } from '../helpers/media.ts'

const ALL = ['post.published', 'post.updated', 'post.deleted', 'comment.created', 'user.registered']
// Retries at once (backoff from 0 s), jobs polled every half second.
const jobs = { pollingIntervalSeconds: 0.5, webhookRetryDelaySeconds: 0 }

/** An app of its own (on PostgreSQL, a database of its own: no other file's events reach its endpoints). */
async function app(t: Test, label: string): Promise<FastifyInstance> {
  const env: Record<string, string> = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' }
  if (usingPostgres) env.DATABASE_URL = await createScratchDatabase(t, label)
  return build(t, env, { jobs })
}

function verify(secret: string, delivery: Received) {
  const headers = {
    'webhook-id': String(delivery.headers['webhook-id']),
    'webhook-timestamp': String(delivery.headers['webhook-timestamp']),
    'webhook-signature': String(delivery.headers['webhook-signature']),
  }
  return new Webhook(secret).verify(delivery.body, headers)
}

t.test(
  'a receiver answering 500 twice then 200 gets the event three times, one webhook-id, three attempts recorded',
  async (t) => {
    const server = await app(t, 'webhook_retries')
    const receiver = await startReceiver(t, [500, 500, 200])
    const admin = await registerAdmin(server)
    const hook = await createWebhook(server, admin, { url: receiver.url, events: ['post.published'] })
    const author = await registerUser(server)
    const post = await createPost(server, author, { status: 'published' })
    t.ok(await eventually(async () => receiver.received.length >= 3), 'three deliveries arrived')
    const ids = receiver.received.map((delivery) => delivery.headers['webhook-id'])
    t.equal(new Set(ids).size, 1, 'the same webhook-id on every attempt')
    t.match(ids[0], /^msg_[0-9a-f-]{36}$/)
    for (const delivery of receiver.received)
      t.same(verify(hook.secret, delivery), JSON.parse(delivery.body), 'signature verifies')
    t.throws(
      () => verify(`whsec_${Buffer.alloc(32, 7).toString('base64')}`, receiver.received[0]!),
      'another secret does not verify',
    )
    const event = receiver.events()[0]!
    t.equal(event.type, 'post.published')
    const read = (await server.inject({ method: 'GET', url: `/posts/${post.id}` })).json().data
    t.same(event.data, read, 'data is the post as getPost reads it')
    let attempts: Awaited<ReturnType<typeof deliveriesOf>>['data'] = []
    t.ok(
      await eventually(async () => (attempts = (await deliveriesOf(server, admin, hook.id)).data).length === 3),
      'three attempts recorded',
    )
    t.match(
      attempts,
      [
        {
          attempt: 3,
          outcome: 'delivered',
          responseStatus: 200,
          error: null,
          eventId: ids[0],
          eventType: 'post.published',
        },
        { attempt: 2, outcome: 'failed', responseStatus: 500, error: 'the receiver answered 500' },
        { attempt: 1, outcome: 'failed', responseStatus: 500 },
      ],
      'newest first, each with its outcome and status',
    )
    const firstPage = await deliveriesOf(server, admin, hook.id, '?limit=2')
    t.equal(firstPage.data.length, 2)
    const secondPage = await deliveriesOf(server, admin, hook.id, `?limit=2&cursor=${firstPage.meta.page.nextCursor}`)
    t.match(secondPage, { data: [{ attempt: 1 }], meta: { page: { nextCursor: null } } }, 'cursor-paged')
    t.equal(receiver.received.length, 3, 'nothing more after the 2xx')
  },
)

t.test('each of the five events, with data as the API reads the resource', async (t) => {
  const server = await app(t, 'webhook_events')
  const receiver = await startReceiver(t)
  const admin = await registerAdmin(server)
  await createWebhook(server, admin, { url: receiver.url, events: ALL })
  const user: Account = await registerUser(server)
  const post = await createPost(server, user, { status: 'published' })
  const comment = await createComment(server, user, post.id)
  const patched = await server.inject({
    method: 'PATCH',
    url: `/posts/${post.id}`,
    headers: user.auth,
    payload: { title: 'A new title' },
  })
  t.equal(patched.statusCode, 200)
  const scheduled = await createPost(server, user, {
    status: 'scheduled',
    publishedAt: new Date(Date.now() + 3_600_000).toISOString(),
  })
  await makeDue(server, scheduled.id)
  t.equal((await server.inject({ method: 'DELETE', url: `/posts/${post.id}`, headers: user.auth })).statusCode, 204)
  t.ok(await eventually(async () => receiver.received.length >= 6), 'six deliveries')
  const byType = new Map(receiver.events().map((event) => [`${event.type}:${event.data.id}`, event]))
  const users = (await server.inject({ method: 'GET', url: '/users?limit=100', headers: admin.auth })).json().data
  t.same(
    byType.get(`user.registered:${user.id}`)?.data,
    users.find((u: { id: string }) => u.id === user.id),
  )
  t.same(byType.get(`comment.created:${comment.id}`)?.data, comment)
  t.same(byType.get(`post.updated:${post.id}`)?.data, patched.json().data, 'post.updated: the post after the change')
  t.same(byType.get(`post.deleted:${post.id}`)?.data, patched.json().data, 'post.deleted: the post just before')
  const published = byType.get(`post.published:${scheduled.id}`)
  const read = (await server.inject({ method: 'GET', url: `/posts/${scheduled.id}` })).json().data
  t.same(published?.data, read, 'a scheduled post publishing itself sends post.published')
  t.equal(read.status, 'published')
  for (const event of receiver.events()) t.match(event.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
})

t.test('an endpoint gets only the events it listens for; a paused one gets none', async (t) => {
  const server = await app(t, 'webhook_filters')
  const [comments, paused] = [await startReceiver(t), await startReceiver(t)]
  const admin = await registerAdmin(server)
  await createWebhook(server, admin, { url: comments.url, events: ['comment.created'] })
  const pausedHook = await createWebhook(server, admin, { url: paused.url, events: ALL })
  const pause = await server.inject({
    method: 'PATCH',
    url: `/webhooks/${pausedHook.id}`,
    headers: admin.auth,
    payload: { active: false },
  })
  t.match(pause.json().data, { active: false, url: paused.url })
  const user = await registerUser(server)
  const post = await createPost(server, user, { status: 'published' })
  await createComment(server, user, post.id)
  t.ok(await eventually(async () => comments.received.length === 1), 'the comment event arrived')
  t.same(
    comments.events().map((event) => event.type),
    ['comment.created'],
    'and only it',
  )
  t.equal(paused.received.length, 0, 'the paused endpoint got nothing')
})

t.test('a thumbnail uploaded or removed sends post.updated with the post as read after it', async (t) => {
  const server = await app(t, 'webhook_thumbnails')
  const receiver = await startReceiver(t)
  const admin = await registerAdmin(server)
  await createWebhook(server, admin, { url: receiver.url, events: ['post.updated'] })
  const author = await registerUser(server)
  const post = await createPost(server, author, { status: 'published' })
  const uploaded = await uploadThumbnail(server, post.id, author.auth, await solidImage(64, 48, 'png'))
  t.equal(uploaded.statusCode, 200)
  t.ok(await eventually(async () => receiver.received.length === 1), 'post.updated for the upload')
  t.same(receiver.events()[0]!.data, uploaded.json().data, 'with its thumbnail')
  const removed = await server.inject({ method: 'DELETE', url: `/posts/${post.id}/thumbnail`, headers: author.auth })
  t.equal(removed.statusCode, 204)
  t.ok(await eventually(async () => receiver.received.length === 2), 'post.updated for the removal')
  const read = (await server.inject({ method: 'GET', url: `/posts/${post.id}` })).json().data
  t.equal(read.thumbnail, null)
  t.same(receiver.events()[1]!.data, read, 'without it')
})

t.test('a media item force-deleted sends post.updated for each post that showed it, updatedAt moved on', async (t) => {
  const server = await app(t, 'webhook_media_delete')
  const receiver = await startReceiver(t)
  const admin = await registerAdmin(server)
  await createWebhook(server, admin, { url: receiver.url, events: ['post.updated'] })
  const author = await registerUser(server)
  const item = await createMedia(server, author.auth)
  // The posts show the item as readers' posts do: its url in their bodies.
  const body = `A photo: ![A photo](${item.url})`
  const posts = [
    await createPost(server, author, { status: 'published', body }),
    await createPost(server, author, { status: 'draft', body }),
  ]
  const other = await createPost(server, author, { status: 'published' })
  const read = async (id: string) =>
    (await server.inject({ method: 'GET', url: `/posts/${id}`, headers: author.auth })).json().data
  const before = await Promise.all(posts.map((post) => read(post.id)))
  const otherBefore = await read(other.id)
  for (const post of before) t.same(post.mediaIds, [item.id], 'each post shows the item')

  const deleted = await server.inject({ method: 'DELETE', url: `/media/${item.id}?force=true`, headers: author.auth })
  t.equal(deleted.statusCode, 204)
  const after = await Promise.all(posts.map((post) => read(post.id)))
  after.forEach((post, index) => {
    t.same(post.mediaIds, [], 'the post no longer shows it')
    t.ok(Date.parse(post.updatedAt) > Date.parse(before[index]!.updatedAt), 'and its updatedAt moved on')
  })
  t.ok(await eventually(async () => receiver.received.length >= 2), 'post.updated for each post')
  const byPost = new Map(receiver.events().map((event) => [event.data.id, event]))
  posts.forEach((post, index) => {
    t.equal(byPost.get(post.id)?.type, 'post.updated')
    t.same(byPost.get(post.id)?.data, after[index], 'with the post as read after the delete')
  })
  t.same((await read(other.id)).updatedAt, otherBefore.updatedAt, 'a post that did not show it is untouched')
  t.equal(receiver.received.length, 2, 'and nothing for it')
})
