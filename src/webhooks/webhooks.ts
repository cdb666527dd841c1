// The admin operations on webhook endpoints: their rules and bounds. Deliveries: dispatch.ts.
import type { components } from '../generated/api.ts'
import type { Wire } from '../wire.ts'
import { DEFAULT_PAGE_LIMIT, decodeCursor, pageOf } from '../cursor.ts'
import { ApiError, notFound } from '../errors/api-error.ts'
import { newWebhookSecret, type SecretBox } from './secret-box.ts'
import { checkWebhookUrl, type UrlPolicy } from './webhook-url.ts'
import type { WebhookStore } from './webhook-store.ts'

type Webhook = components['schemas']['Webhook']
type CreatedWebhook = components['schemas']['CreatedWebhook']
type CreateWebhook = components['schemas']['CreateWebhookRequest']
type UpdateWebhook = components['schemas']['UpdateWebhookRequest']
type WebhookDelivery = components['schemas']['WebhookDelivery']
type EventType = components['schemas']['WebhookEventType']

/** Endpoints that may exist at once: each event costs a job per endpoint, in the write's transaction. */
export const WEBHOOK_MAX_ENDPOINTS = 20

const webhookNotFound = () => notFound('WEBHOOK_NOT_FOUND', 'Webhook')

interface EndpointRow {
  id: string
  url: string
  events: string[]
  description: string
  active: boolean
  createdAt: Date
  updatedAt: Date
}

const toWebhook = (row: EndpointRow): Wire<Webhook> => ({
  id: row.id,
  url: row.url,
  events: row.events as EventType[],
  description: row.description,
  active: row.active,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
})

export interface WebhookServiceOptions {
  store: WebhookStore
  secrets: SecretBox
  urls: UrlPolicy
  /** LIST_PAGE_MAX_BYTES: the most bytes of endpoints or deliveries one page carries. */
  pageMaxBytes: number
}

export function makeWebhookService({ store, secrets, urls, pageMaxBytes }: WebhookServiceOptions) {
  return {
    async list(query: { limit?: number; cursor?: string }) {
      const limit = query.limit ?? DEFAULT_PAGE_LIMIT
      const rows = await store.list({ limit, after: decodeCursor(query.cursor) })
      const { items, nextCursor } = pageOf(
        rows,
        limit,
        (row) => ({ at: row.createdAt, id: row.id }),
        toWebhook,
        pageMaxBytes,
      )
      return { webhooks: items, page: { limit, nextCursor } }
    },

    async create(input: CreateWebhook): Promise<Wire<CreatedWebhook>> {
      await checkWebhookUrl(input.url, urls)
      const secret = newWebhookSecret()
      const created = await store.createBounded(
        {
          url: input.url,
          events: input.events,
          description: input.description ?? '',
          secretSealed: secrets.seal(secret),
        },
        WEBHOOK_MAX_ENDPOINTS,
      )
      if (created === null)
        throw new ApiError(
          409,
          'WEBHOOK_LIMIT_REACHED',
          `At most ${WEBHOOK_MAX_ENDPOINTS} webhook endpoints may exist; remove one first.`,
        )
      return { ...toWebhook(created), secret }
    },

    async update(id: string, input: UpdateWebhook): Promise<Webhook> {
      if (input.url !== undefined) {
        // 404 before a refusal of the URL: the endpoint is what the path names.
        if (!(await store.exists(id))) throw webhookNotFound()
        await checkWebhookUrl(input.url, urls)
      }
      const updated = await store.update(id, input)
      if (updated === null) throw webhookNotFound()
      return toWebhook(updated)
    },

    async remove(id: string): Promise<void> {
      if (!(await store.remove(id))) throw webhookNotFound()
    },

    async deliveries(id: string, query: { limit?: number; cursor?: string }) {
      const limit = query.limit ?? DEFAULT_PAGE_LIMIT
      const after = decodeCursor(query.cursor)
      if (!(await store.exists(id))) throw webhookNotFound()
      const rows = await store.attempts(id, { limit, after })
      const toDelivery = (row: (typeof rows)[number]): Wire<WebhookDelivery> => ({
        id: row.id,
        eventId: `msg_${row.eventId}`,
        eventType: row.eventType as EventType,
        attempt: row.attempt,
        outcome: row.outcome,
        responseStatus: row.responseStatus,
        durationMs: row.durationMs,
        error: row.error,
        createdAt: row.createdAt.toISOString(),
      })
      const position = (row: (typeof rows)[number]) => ({ at: row.createdAt, id: row.id })
      const { items, nextCursor } = pageOf(rows, limit, position, toDelivery, pageMaxBytes)
      return { deliveries: items, page: { limit, nextCursor } }
    },
  }
}

export type WebhookService = ReturnType<typeof makeWebhookService>
