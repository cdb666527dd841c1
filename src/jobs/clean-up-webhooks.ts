// Hourly, old webhook events and attempts go (src/webhooks/retention.ts). Once per hour for the
// whole fleet, as clean-up-accounts: one schedule row, a `stately` queue; a run that leaves more
// behind asks for another at once.
import type PgBoss from 'pg-boss'
import type { Logger } from '../log.ts'
import type { WebhookRetention } from '../webhooks/retention.ts'
import { ensureQueue, type Job } from './job.ts'
import { workConcurrently, type ConcurrentWorker } from './work-concurrently.ts'

export const CLEAN_UP_WEBHOOKS_QUEUE = 'clean-up-webhooks'

export async function createCleanUpWebhooksQueue(boss: PgBoss): Promise<void> {
  await ensureQueue(boss, {
    name: CLEAN_UP_WEBHOOKS_QUEUE,
    policy: 'stately',
    retryLimit: 3,
    retryDelay: 60,
    retryBackoff: true,
  })
  await boss.schedule(CLEAN_UP_WEBHOOKS_QUEUE, '41 * * * *')
}

export function startCleanUpWebhooksWorker(
  boss: PgBoss,
  cleanUp: WebhookRetention,
  log: Logger,
  options: { pollingIntervalSeconds?: number } = {},
): ConcurrentWorker {
  return workConcurrently(
    boss,
    CLEAN_UP_WEBHOOKS_QUEUE,
    { pollingIntervalSeconds: options.pollingIntervalSeconds ?? 2, concurrency: 1 },
    async () => {
      const result = await cleanUp()
      if (result.events + result.attempts > 0) log.info(result, 'old webhook events and attempts deleted')
      if (result.more) await boss.send(CLEAN_UP_WEBHOOKS_QUEUE, {})
    },
    log,
  )
}

export const cleanUpWebhooksJob: Job = {
  queue: CLEAN_UP_WEBHOOKS_QUEUE,
  create: createCleanUpWebhooksQueue,
  start: ({ boss, services, log, options }) =>
    startCleanUpWebhooksWorker(boss, services.webhookRetention, log, options),
}
