// An endpoint that stopped answering is held back: once SILENT_IN_A_ROW attempts got no answer, its
// next attempts fail at once without a connection (recorded as held back), so its events do not
// take the instance's delivery slots for the whole timeout each. Counted: of 30 first attempts,
// only those in hand before the hold began reach the receiver.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { registerAdmin, registerUser } from '../helpers/accounts.ts'
import { build, usingPostgres } from '../helpers/build.ts'
import { eventually } from '../helpers/images.ts'
import { createScratchDatabase } from '../helpers/postgres.ts'
import { createPost } from '../helpers/posts.ts'
import { createWebhook, deliveriesOf } from '../helpers/webhooks.ts'
import { DELIVER_WEBHOOK_CONCURRENCY } from '../../src/jobs/deliver-webhook.ts'
import { SILENT_IN_A_ROW } from '../../src/webhooks/endpoint-breaker.ts'

const EVENTS = 30

t.test('a silent endpoint is held back after its attempts in a row got no answer', async (t) => {
  const env: Record<string, string> = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' }
  if (usingPostgres) env.DATABASE_URL = await createScratchDatabase(t, 'webhook_silent_endpoint')
  // No retries within the test: each event's first attempt only.
  const app = await build(t, env, {
    jobs: { pollingIntervalSeconds: 0.5, webhookRetryDelaySeconds: 3600 },
    webhooks: { timeoutMs: 500 },
  })
  let connections = 0
  const silent = createServer(() => undefined)
  silent.on('connection', () => connections++)
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
  t.teardown(() => {
    silent.closeAllConnections()
    silent.close()
  })
  const admin = await registerAdmin(app)
  const hook = await createWebhook(app, admin, {
    url: `http://127.0.0.1:${(silent.address() as AddressInfo).port}/`,
    events: ['post.published'],
  })
  const author = await registerUser(app)
  for (let index = 0; index < EVENTS; index++) await createPost(app, author, { status: 'published' })
  const attempted = async () =>
    Number(
      (
        await app.services.database.prisma.$queryRaw<{ n: bigint }[]>`
          select count(distinct event_id) as n from webhook_attempts where endpoint_id = ${hook.id}::uuid`
      )[0]!.n,
    )
  t.ok(await eventually(async () => (await attempted()) === EVENTS), 'every event had its first attempt')
  const attempts = (await deliveriesOf(app, admin, hook.id, '?limit=100')).data
  const heldBack = attempts.filter((attempt) => /^not sent: the endpoint did not answer/.test(attempt.error ?? ''))
  t.ok(heldBack.length > 0, `${heldBack.length} attempts held back`)
  t.ok(connections < EVENTS, `${connections} of ${EVENTS} attempts reached the receiver`)
  t.ok(connections <= SILENT_IN_A_ROW + DELIVER_WEBHOOK_CONCURRENCY, 'no more than were in hand when the hold began')
})
