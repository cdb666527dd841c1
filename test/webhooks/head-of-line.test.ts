// A receiver that never answers holds only its own attempts: every other endpoint's deliveries go
// on meanwhile. Counted, not timed: the silent receiver's attempts are held for a minute (the
// attempt's timeout here), and every delivery to the healthy receiver must arrive while they are.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { registerAdmin, registerUser } from '../helpers/accounts.ts'
import { build, usingPostgres } from '../helpers/build.ts'
import { eventually } from '../helpers/images.ts'
import { createScratchDatabase } from '../helpers/postgres.ts'
import { createPost } from '../helpers/posts.ts'
import { startReceiver } from '../helpers/webhook-receiver.ts'
import { createWebhook } from '../helpers/webhooks.ts'

const EVENTS = 15

t.test('a silent receiver does not hold up the deliveries to another endpoint', async (t) => {
  const env: Record<string, string> = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' }
  if (usingPostgres) env.DATABASE_URL = await createScratchDatabase(t, 'webhook_head_of_line')
  const app = await build(t, env, { jobs: { pollingIntervalSeconds: 0.5 }, webhooks: { timeoutMs: 60_000 } })
  let held = 0
  const silent = createServer(() => held++)
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
  const healthy = await startReceiver(t)
  const admin = await registerAdmin(app)
  const events = ['post.published']
  await createWebhook(app, admin, { url: `http://127.0.0.1:${(silent.address() as AddressInfo).port}/`, events })
  await createWebhook(app, admin, { url: healthy.url, events })
  const author = await registerUser(app)
  for (let index = 0; index < EVENTS; index++) await createPost(app, author, { status: 'published' })
  try {
    t.ok(
      await eventually(async () => healthy.received.length === EVENTS, 30_000),
      `all ${EVENTS} deliveries to the healthy receiver arrived (${healthy.received.length})`,
    )
    t.ok(held > 0, `the silent receiver still holds ${held} attempts`)
  } finally {
    // Its attempts then fail at once, so the app stops without waiting for their timeout.
    silent.closeAllConnections()
    await new Promise<void>((resolve) => silent.close(() => resolve()))
  }
})
