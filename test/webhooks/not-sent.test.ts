// Attempts that send nothing say why in listWebhookDeliveries: a retry falling due while its
// endpoint is paused is given up, and a secret that cannot be opened sends nothing unsigned.
import type { FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import { registerAdmin, registerUser } from '../helpers/accounts.ts'
import { build, usingPostgres } from '../helpers/build.ts'
import { eventually } from '../helpers/images.ts'
import { createScratchDatabase } from '../helpers/postgres.ts'
import { createPost } from '../helpers/posts.ts'
import { startReceiver } from '../helpers/webhook-receiver.ts'
import { createWebhook, deliveriesOf } from '../helpers/webhooks.ts'

const appEnv = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' }

async function app(t: Test, label: string): Promise<FastifyInstance> {
  const env: Record<string, string> = { ...appEnv }
  if (usingPostgres) env.DATABASE_URL = await createScratchDatabase(t, label)
  return build(t, env, { jobs: { pollingIntervalSeconds: 0.5, webhookRetryDelaySeconds: 0 } })
}

t.test('a retry falling due while its endpoint is paused is given up, and recorded as such', async (t) => {
  const server = await build(
    t,
    usingPostgres ? { ...appEnv, DATABASE_URL: await createScratchDatabase(t, 'webhook_paused_retry') } : appEnv,
    {
      // Long enough between the two attempts for the pause to come first.
      jobs: { pollingIntervalSeconds: 0.5, webhookRetryDelaySeconds: 3 },
    },
  )
  const receiver = await startReceiver(t, [500])
  const admin = await registerAdmin(server)
  const hook = await createWebhook(server, admin, { url: receiver.url, events: ['post.published'] })
  await createPost(server, await registerUser(server), { status: 'published' })
  t.ok(await eventually(async () => (await deliveriesOf(server, admin, hook.id)).data.length === 1), 'attempt 1 failed')
  const pause = await server.inject({
    method: 'PATCH',
    url: `/webhooks/${hook.id}`,
    headers: admin.auth,
    payload: { active: false },
  })
  t.equal(pause.statusCode, 200)
  t.ok(
    await eventually(async () => (await deliveriesOf(server, admin, hook.id)).data.length === 2),
    'attempt 2 recorded',
  )
  const [second] = (await deliveriesOf(server, admin, hook.id)).data
  t.match(second, {
    attempt: 2,
    outcome: 'failed',
    responseStatus: null,
    error: 'not sent: the endpoint is paused; this event is given up',
  })
  t.equal(receiver.received.length, 1, 'nothing was sent in the pause')
})

t.test('an endpoint whose secret cannot be opened records each attempt as failed, and why', async (t) => {
  const server = await app(t, 'webhook_unusable_secret')
  const receiver = await startReceiver(t)
  const admin = await registerAdmin(server)
  const hook = await createWebhook(server, admin, { url: receiver.url, events: ['post.published'] })
  // As if sealed under another JWT_SECRET.
  await server.services.database.prisma.$executeRaw`
    update webhook_endpoints set secret_sealed = ${`v1.${Buffer.alloc(60, 1).toString('base64url')}`} where id = ${hook.id}::uuid`
  await createPost(server, await registerUser(server), { status: 'published' })
  t.ok(await eventually(async () => (await deliveriesOf(server, admin, hook.id)).data.length >= 2), 'attempts recorded')
  for (const attempt of (await deliveriesOf(server, admin, hook.id)).data)
    t.match(attempt, {
      outcome: 'failed',
      responseStatus: null,
      error: /^not sent: the endpoint's secret cannot be opened/,
    })
  t.equal(receiver.received.length, 0, 'nothing was sent unsigned')
})
