// Two instances on one PostgreSQL, as behind a load balancer: each event reaches each endpoint
// exactly once with a 2xx, whichever instance caused it and whichever delivers it, retries included.
import t from 'tap'
import { registerAdmin, registerUser } from '../helpers/accounts.ts'
import { build, usingPostgres } from '../helpers/build.ts'
import { eventually } from '../helpers/images.ts'
import { createScratchDatabase } from '../helpers/postgres.ts'
import { createPost } from '../helpers/posts.ts'
import { startReceiver } from '../helpers/webhook-receiver.ts'
import { createWebhook } from '../helpers/webhooks.ts'

const skip = usingPostgres ? false : 'needs PostgreSQL: the embedded database belongs to one process (set DATABASE_URL)'
const jobs = { pollingIntervalSeconds: 0.5, webhookRetryDelaySeconds: 0 }
const EVENTS = 12

t.test('two instances: one delivery per event per endpoint', { skip }, async (t) => {
  const env = { DATABASE_URL: await createScratchDatabase(t, 'webhook_fleet'), WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' }
  const [one, two] = [await build(t, env, { jobs }), await build(t, env, { jobs })]
  // Some first attempts fail, so retries (taken by either instance) are part of it.
  const [a, b] = [await startReceiver(t, [500, 503]), await startReceiver(t, [500])]
  const admin = await registerAdmin(one)
  await createWebhook(one, admin, { url: a.url, events: ['post.published'] })
  await createWebhook(two, admin, { url: b.url, events: ['post.published'] })
  const author = await registerUser(one)
  for (let index = 0; index < EVENTS; index++)
    await createPost(index % 2 === 0 ? one : two, author, { status: 'published' })
  const succeeded = (receiver: typeof a) => receiver.received.filter((delivery) => delivery.status === 200)
  t.ok(
    await eventually(async () => succeeded(a).length >= EVENTS && succeeded(b).length >= EVENTS),
    'every event reached both endpoints',
  )
  // A duplicate, were one queued, would be a job still to run: wait until none is left.
  const pending = async () => {
    const [row] = await one.services.database.prisma.$queryRaw<{ n: bigint }[]>`
      select count(*) as n from pgboss.job where name = 'deliver-webhook' and state < 'completed'`
    return Number(row!.n)
  }
  t.ok(await eventually(async () => (await pending()) === 0), 'no delivery job left to run')
  for (const [name, receiver] of [
    ['a', a],
    ['b', b],
  ] as const) {
    const ids = succeeded(receiver).map((delivery) => delivery.headers['webhook-id'])
    t.equal(ids.length, EVENTS, `${name}: ${EVENTS} successful deliveries`)
    t.equal(new Set(ids).size, EVENTS, `${name}: each event once`)
    t.equal(receiver.received.length, EVENTS + (name === 'a' ? 2 : 1), `${name}: the failed attempts were retried`)
  }
  const rows = await one.services.database.prisma.$queryRaw<{ n: bigint }[]>`
    select count(*) as n from webhook_attempts where outcome = 'delivered' group by event_id, endpoint_id`
  t.same(
    rows.map((row) => Number(row.n)),
    Array(EVENTS * 2).fill(1),
    'one delivered attempt per (event, endpoint) recorded',
  )
})
