// A committed change that queues deliveries wakes the delivery workers: the event goes out without
// waiting for their next poll. Counted, not timed: the workers here poll every ten minutes, after
// the one look each takes at start-up, so every delivery that arrives within the test was woken.
// On PostgreSQL the notification comes through the instance's LISTEN connection, as another
// instance's would; the embedded database hears its own.
import t from 'tap'
import { registerAdmin, registerUser } from '../helpers/accounts.ts'
import { build, usingPostgres } from '../helpers/build.ts'
import { createComment } from '../helpers/content.ts'
import { eventually } from '../helpers/images.ts'
import { createScratchDatabase } from '../helpers/postgres.ts'
import { createPost } from '../helpers/posts.ts'
import { startReceiver } from '../helpers/webhook-receiver.ts'
import { createWebhook } from '../helpers/webhooks.ts'

const jobs = { pollingIntervalSeconds: 600 }

t.test('each committed change with deliveries wakes the worker', async (t) => {
  const env: Record<string, string> = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' }
  if (usingPostgres) env.DATABASE_URL = await createScratchDatabase(t, 'webhook_wake')
  const app = await build(t, env, { jobs })
  const receiver = await startReceiver(t)
  await createWebhook(app, await registerAdmin(app), {
    url: receiver.url,
    events: ['post.published', 'comment.created'],
  })
  const author = await registerUser(app)
  const post = await createPost(app, author, { status: 'published' })
  t.ok(await eventually(async () => receiver.received.length === 1), 'post.published arrived')
  await createComment(app, author, post.id)
  t.ok(await eventually(async () => receiver.received.length === 2), 'then comment.created')
  t.same(
    receiver.events().map((event) => event.type),
    ['post.published', 'comment.created'],
  )
})
