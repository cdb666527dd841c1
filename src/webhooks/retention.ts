// How long webhook rows are kept: an event a week (its deliveries give up after about 40 minutes),
// an attempt 30 days (listWebhookDeliveries' history). Deleted in bounded batches by the hourly
// clean-up-webhooks job; a run that leaves more behind says so.
import type { WebhookStore } from './webhook-store.ts'

export const EVENT_RETENTION_DAYS = 7
export const ATTEMPT_RETENTION_DAYS = 30
const BATCH_SIZE = 1000
const MAX_BATCHES = 20

const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000)

export function makeWebhookRetention(store: Pick<WebhookStore, 'deleteEventsBefore' | 'deleteAttemptsBefore'>) {
  async function inBatches(batch: () => Promise<number>) {
    let deleted = 0
    for (let round = 0; round < MAX_BATCHES; round++) {
      const count = await batch()
      deleted += count
      if (count < BATCH_SIZE) return { deleted, more: false }
    }
    return { deleted, more: true }
  }
  return async function cleanUp() {
    const events = await inBatches(() => store.deleteEventsBefore(daysAgo(EVENT_RETENTION_DAYS), BATCH_SIZE))
    const attempts = await inBatches(() => store.deleteAttemptsBefore(daysAgo(ATTEMPT_RETENTION_DAYS), BATCH_SIZE))
    return { events: events.deleted, attempts: attempts.deleted, more: events.more || attempts.more }
  }
}

export type WebhookRetention = ReturnType<typeof makeWebhookRetention>
