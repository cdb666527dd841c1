// The webhook services, as makeServices builds them: the events writes emit in their transactions,
// the admin operations on endpoints, one delivery attempt, and the clean-up of old rows.
import type { Config } from '../config.ts'
import { enqueueWebhookDelivery } from '../jobs/deliver-webhook.ts'
import type { Logger } from '../log.ts'
import type { Queue } from '../queue/queue.ts'
import { DELIVERY_TIMEOUT_MS } from '../webhooks/delivery.ts'
import { makeWebhookDispatch } from '../webhooks/dispatch.ts'
import { makeEndpointBreaker } from '../webhooks/endpoint-breaker.ts'
import { systemResolve, type Resolve } from '../webhooks/resolve.ts'
import { makeWebhookRetention } from '../webhooks/retention.ts'
import { makeSecretBox } from '../webhooks/secret-box.ts'
import { makeDeliveriesQueued, makeWebhookEvents } from '../webhooks/webhook-events.ts'
import type { WebhookStore } from '../webhooks/webhook-store.ts'
import { makeWebhookService } from '../webhooks/webhooks.ts'

export interface WebhookOptions {
  /** Resolves webhook hosts, at creation and at delivery (tests make a name turn private). */
  resolve?: Resolve
  /** How long one delivery attempt may take; DELIVERY_TIMEOUT_MS (5 s) unless a test shortens it. */
  timeoutMs?: number
}

export interface WebhookServicesOptions {
  config: Config
  queue: Queue
  store: WebhookStore
  log: Logger
  options: WebhookOptions
}

export function makeWebhookServices({ config, queue, store, log, options }: WebhookServicesOptions) {
  const { boss } = queue
  // Webhook events go out with the writes that cause them, in their transactions.
  const deliveriesQueued = makeDeliveriesQueued()
  const events = makeWebhookEvents((job, jobId, sql) => enqueueWebhookDelivery(boss, job, jobId, sql))
  const secrets = makeSecretBox(config.jwtSecret)
  const webhookPolicy = {
    allowPrivateNetworks: config.webhookAllowPrivateNetworks,
    resolve: options.resolve ?? systemResolve,
    log,
  }
  return {
    /** What the account and content services emit their events through. */
    events,
    deliveriesQueued,
    webhooks: makeWebhookService({
      store,
      secrets,
      urls: webhookPolicy,
      pageMaxBytes: config.listPageMaxBytes,
    }),
    webhookDispatch: makeWebhookDispatch({
      store,
      secrets,
      policy: { ...webhookPolicy, timeoutMs: options.timeoutMs ?? DELIVERY_TIMEOUT_MS },
      breaker: makeEndpointBreaker(),
      log,
    }),
    webhookRetention: makeWebhookRetention(store),
  }
}
