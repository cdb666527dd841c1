// Old webhook rows go: events after a week, attempts after 30 days; newer ones stay.
import { randomUUID } from 'node:crypto'
import t from 'tap'
import { registerAdmin } from '../helpers/accounts.ts'
import { build, usingPostgres } from '../helpers/build.ts'
import { createScratchDatabase } from '../helpers/postgres.ts'
import { createWebhook } from '../helpers/webhooks.ts'

const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000)

t.test('the clean-up deletes events older than 7 days and attempts older than 30', async (t) => {
  const env: Record<string, string> = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' }
  if (usingPostgres) env.DATABASE_URL = await createScratchDatabase(t, 'webhook_retention')
  const server = await build(t, env, { jobs: { pollingIntervalSeconds: 60 } })
  const { prisma } = server.services.database
  const hook = await createWebhook(server, await registerAdmin(server), {
    url: 'http://127.0.0.1:9/',
    events: ['post.updated'],
  })
  const event = (days: number) => ({ id: randomUUID(), type: 'post.updated', body: '{}', createdAt: daysAgo(days) })
  await prisma.webhookEvent.createMany({ data: [event(8), event(8), event(6)] })
  const attempt = (days: number) => ({
    endpointId: hook.id,
    eventId: randomUUID(),
    eventType: 'post.updated',
    attempt: 1,
    outcome: 'delivered' as const,
    responseStatus: 200,
    durationMs: 1,
    createdAt: daysAgo(days),
  })
  await prisma.webhookAttempt.createMany({ data: [attempt(31), attempt(29)] })
  t.same(await server.services.webhookRetention(), { events: 2, attempts: 1, more: false })
  t.equal(await prisma.webhookEvent.count(), 1)
  t.equal(await prisma.webhookAttempt.count(), 1)
})
