// Webhook events, written in the transaction of the change that causes them: the event row and one
// delivery job per endpoint listening for it commit or roll back with the change, so a refused or
// rolled-back write sends nothing. Each job's id is derived from the event and the endpoint, so no
// (event, endpoint) pair can ever be queued twice.
import { randomUUID } from 'node:crypto'
import type { components } from '../generated/api.ts'
import { uuidV5OfUrl } from '../content/slugs/uuid-v5.ts'
import type { TransactionSql } from '../db/transaction.ts'
import { insertEventIn, subscribersIn } from './webhook-store.ts'

export type WebhookEventType = components['schemas']['WebhookEventType']

/** What a delivery job carries: the event's body is read from its row, not copied into each job. */
export interface DeliveryJob {
  eventId: string
  endpointId: string
}

/**
 * Notified by every transaction that queues deliveries, so the delivery workers look at once
 * instead of at their next poll: Postgres delivers it at commit only, to every instance listening.
 */
export const DELIVERIES_QUEUED_CHANNEL = 'webhook_deliveries'

/** Tells this instance's delivery worker that deliveries were queued (a notification came in). */
export interface DeliveriesQueued {
  onQueued(listener: () => void): void
  queued(): void
}

export function makeDeliveriesQueued(): DeliveriesQueued {
  const listeners: (() => void)[] = []
  return {
    onQueued: (listener) => void listeners.push(listener),
    queued: () => listeners.forEach((listener) => listener()),
  }
}

/** Enqueues a delivery under `jobId` in the transaction `sql` belongs to (jobs/deliver-webhook.ts). */
export type EnqueueDelivery = (job: DeliveryJob, jobId: string, sql: TransactionSql) => Promise<void>

/** The job id of the delivery of one event to one endpoint: the same wherever it is computed. */
export const deliveryJobId = ({ eventId, endpointId }: DeliveryJob) =>
  uuidV5OfUrl(`urn:blog-api:webhook-delivery:${eventId}:${endpointId}`)

export interface WebhookEvents {
  /** Queues `type` with `data` (as the API reads that resource) for every endpoint listening, in `sql`'s transaction. */
  emit(sql: TransactionSql, type: WebhookEventType, data: unknown): Promise<void>
}

export function makeWebhookEvents(enqueue: EnqueueDelivery): WebhookEvents {
  return {
    async emit(sql, type, data) {
      const endpoints = await subscribersIn(sql, type)
      if (endpoints.length === 0) return
      const eventId = randomUUID()
      const body = JSON.stringify({ type, timestamp: new Date().toISOString(), data })
      await insertEventIn(sql, { id: eventId, type, body }, DELIVERIES_QUEUED_CHANNEL)
      for (const endpointId of endpoints) {
        const job = { eventId, endpointId }
        await enqueue(job, deliveryJobId(job), sql)
      }
    },
  }
}

/** Events nowhere: for services built without webhooks (tests of a part alone). */
export const noWebhookEvents: WebhookEvents = { emit: async () => undefined }
