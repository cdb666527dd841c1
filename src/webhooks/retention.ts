// How long webhook rows are kept: an event a week (its deliveries give up after about 40 minutes),
// an attempt 30 days (listWebhookDeliveries' history). Deleted in bounded batches by the hourly
// clean-up-webhooks job; a run that leaves more behind says so.
import { inBatches, type BatchLimits } from '../db/in-batches.ts'
import type { WebhookStore } from './webhook-store.ts'

export const EVENT_RETENTION_DAYS = 7
export const ATTEMPT_RETENTION_DAYS = 30
const LIMITS: BatchLimits = { batchSize: 1000, maxBatches: 20 }

const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000)

export function makeWebhookRetention(store: Pick<WebhookStore, 'deleteEventsBefore' | 'deleteAttemptsBefore'>) {
  return async function cleanUp() {
    const events = await inBatches(LIMITS, () =>
      store.deleteEventsBefore(daysAgo(EVENT_RETENTION_DAYS), LIMITS.batchSize),
    )
    const attempts = await inBatches(LIMITS, () =>
      store.deleteAttemptsBefore(daysAgo(ATTEMPT_RETENTION_DAYS), LIMITS.batchSize),
    )
    return { events: events.deleted, attempts: attempts.deleted, more: events.more || attempts.more }
  }
}

export type WebhookRetention = ReturnType<typeof makeWebhookRetention>
