// Webhook endpoints made the way admins make them: over HTTP.
import type { FastifyInstance } from 'fastify'
import type { Account } from './accounts.ts'

export async function createWebhook(
  app: FastifyInstance,
  admin: Account,
  payload: { url: string; events: string[]; description?: string },
) {
  const response = await app.inject({ method: 'POST', url: '/webhooks', headers: admin.auth, payload })
  if (response.statusCode !== 201) throw new Error(`createWebhook: ${response.statusCode} ${response.body}`)
  return response.json().data as { id: string; secret: string; url: string; events: string[] }
}

export async function deliveriesOf(app: FastifyInstance, admin: Account, id: string, query = '') {
  const response = await app.inject({ method: 'GET', url: `/webhooks/${id}/deliveries${query}`, headers: admin.auth })
  if (response.statusCode !== 200) throw new Error(`listWebhookDeliveries: ${response.statusCode} ${response.body}`)
  return response.json() as {
    data: {
      eventId: string
      eventType: string
      attempt: number
      outcome: string
      responseStatus: number | null
      error: string | null
    }[]
    meta: { page: { nextCursor: string | null } }
  }
}

/** Rows in the tables an event leaves: its own and its delivery jobs. */
export async function webhookTraces(app: FastifyInstance) {
  const [row] = await app.services.database.prisma.$queryRaw<{ events: bigint; jobs: bigint }[]>`
    select (select count(*) from webhook_events) as events,
           (select count(*) from pgboss.job where name = 'deliver-webhook') as jobs`
  return { events: Number(row!.events), jobs: Number(row!.jobs) }
}
