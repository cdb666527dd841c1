// Webhook deliveries: one job per (event, endpoint), enqueued in the transaction of the change
// (src/webhooks/webhook-events.ts) under an id derived from both, so a pair is never queued twice.
// pg-boss hands a job to one worker of the whole fleet at a time; a failed attempt (non-2xx, no
// answer within 5 s, network error, refused address) fails the job, which pg-boss retries with
// exponential backoff: DELIVERY_ATTEMPTS in all, then it gives up. The job's expiry is longer than
// an attempt may take, so an attempt still running is never handed to a second worker.
import type PgBoss from 'pg-boss'
import type { TransactionSql } from '../db/transaction.ts'
import type { Logger } from '../log.ts'
import type { DeliveryJob } from '../webhooks/webhook-events.ts'
import { workConcurrently, type ConcurrentWorker } from './work-concurrently.ts'
import { ensureQueue, type Job, type JobServices, type JobsOptions } from './job.ts'

export const DELIVER_WEBHOOK_QUEUE = 'deliver-webhook'

/** Attempts per event and endpoint (the spec's listWebhookDeliveries says so): about 40 minutes of outage. */
export const DELIVERY_ATTEMPTS = 8
/** Seconds before the first retry (then doubling, with jitter: pg-boss's retryBackoff). */
export const DELIVERY_RETRY_DELAY_SECONDS = 10

export async function createDeliverWebhookQueue(boss: PgBoss, options: JobsOptions = {}) {
  await ensureQueue(boss, {
    name: DELIVER_WEBHOOK_QUEUE,
    policy: 'standard',
    retryLimit: DELIVERY_ATTEMPTS - 1,
    retryDelay: options.webhookRetryDelaySeconds ?? DELIVERY_RETRY_DELAY_SECONDS,
    retryBackoff: true,
    expireInSeconds: 60,
  })
}

/** Enqueues a delivery under `id` in the transaction `sql` belongs to; an id queued already is left as it is. */
export async function enqueueWebhookDelivery(boss: PgBoss, job: DeliveryJob, id: string, sql: TransactionSql) {
  await boss.send(DELIVER_WEBHOOK_QUEUE, job, { id, db: { executeSql: sql } })
}

/** An attempt made and recorded, which failed: the job is failed, so pg-boss retries it. */
class AttemptFailed extends Error {}

/** Attempts in hand at once per instance, each bounded by the attempt's timeout. */
export const DELIVER_WEBHOOK_CONCURRENCY = 20
/**
 * How often an idle worker looks for deliveries. A transaction that queues some wakes every
 * instance's worker when it commits (DELIVERIES_QUEUED_CHANNEL), so this bounds the delay of a
 * notification missed (a listening connection lost) and of retries falling due. pg-boss's
 * shortest interval; one indexed query per look.
 */
export const DELIVER_WEBHOOK_POLLING_INTERVAL_SECONDS = 0.5

export function startDeliverWebhookWorker(
  boss: PgBoss,
  services: Pick<JobServices, 'webhookDispatch'>,
  log: Logger,
  options: JobsOptions = {},
): ConcurrentWorker {
  const workOptions = {
    pollingIntervalSeconds: options.pollingIntervalSeconds ?? DELIVER_WEBHOOK_POLLING_INTERVAL_SECONDS,
    concurrency: DELIVER_WEBHOOK_CONCURRENCY,
  }
  return workConcurrently<DeliveryJob>(
    boss,
    DELIVER_WEBHOOK_QUEUE,
    workOptions,
    async (job) => {
      const outcome = await services.webhookDispatch.attempt(job.data, job.retryCount + 1)
      if (outcome === 'retry') throw new AttemptFailed('delivery attempt failed')
    },
    log,
    (job, error) => {
      // A failed attempt was recorded and logged by the dispatch; anything else was not.
      if (!(error instanceof AttemptFailed))
        log.warn({ jobId: job.id, err: error }, 'webhook delivery attempt not made; it will be retried')
    },
  )
}

export const deliverWebhookJob: Job = {
  queue: DELIVER_WEBHOOK_QUEUE,
  create: createDeliverWebhookQueue,
  start({ boss, services, log, options }) {
    const worker = startDeliverWebhookWorker(boss, services, log, options)
    services.deliveriesQueued.onQueued(worker.wake)
    return worker
  },
}
