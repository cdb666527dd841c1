// One delivery attempt of one event to one endpoint, as the deliver-webhook job runs it: signed
// afresh (a new timestamp) with the event's own id and body, so every attempt carries the same
// webhook-id; recorded whatever its outcome.
import type { Logger } from '../log.ts'
import { HOLD_MS, SILENT_IN_A_ROW, type EndpointBreaker } from './endpoint-breaker.ts'
import { deliver, type DeliveryPolicy, type DeliveryResult } from './delivery.ts'
import type { SecretBox } from './secret-box.ts'
import { signWebhook } from './signature.ts'
import type { DeliveryJob } from './webhook-events.ts'
import type { WebhookStore } from './webhook-store.ts'

/** Sealed under another JWT_SECRET than this one (secret-box.ts): it cannot sign. */
const UNUSABLE_SECRET =
  "not sent: the endpoint's secret cannot be opened (JWT_SECRET changed since it was made); make the endpoint again"

const HELD_BACK = `not sent: the endpoint did not answer its last ${SILENT_IN_A_ROW} attempts; held back for up to ${HOLD_MS / 1000} s`

const notSent = (error: string): DeliveryResult => ({ outcome: 'failed', responseStatus: null, durationMs: 0, error })

export interface WebhookDispatchOptions {
  store: WebhookStore
  secrets: SecretBox
  policy: DeliveryPolicy
  /** Holds back endpoints that stopped answering (endpoint-breaker.ts). */
  breaker: EndpointBreaker
  log: Logger
}

export function makeWebhookDispatch({ store, secrets, policy, breaker, log }: WebhookDispatchOptions) {
  return {
    /** 'done' when nothing is left to do for the job; 'retry' when the attempt failed. */
    async attempt(job: DeliveryJob, attempt: number): Promise<'done' | 'retry'> {
      const { endpoint, event, delivered } = await store.forAttempt(job)
      // Delivered already: this job ran before, and its worker died before completing it.
      if (endpoint === null || event === null || delivered) return 'done'
      const record = (result: DeliveryResult) =>
        store.recordAttempt({ ...job, eventType: event.type, attempt, ...result })
      // Paused since the event (a retry falling due in the pause): given up, and the admin sees why.
      if (!endpoint.active) {
        await record(notSent('not sent: the endpoint is paused; this event is given up'))
        return 'done'
      }
      let secret: string
      try {
        secret = secrets.open(endpoint.secretSealed)
      } catch {
        // The operator's mistake, not the receiver's: said in the log too, where it is watched.
        log.warn({ ...job, attempt }, `webhook ${UNUSABLE_SECRET}`)
        await record(notSent(UNUSABLE_SECRET))
        return 'retry'
      }
      if (!breaker.mayAttempt(job.endpointId)) {
        await record(notSent(HELD_BACK))
        return 'retry'
      }
      const id = `msg_${job.eventId}`
      const timestamp = Math.floor(Date.now() / 1000)
      const signature = signWebhook(secret, id, timestamp, event.body)
      const headers = { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signature }
      const { refusedAddress, ...result } = await deliver(endpoint.url, headers, event.body, policy)
      // A refusal made no connection: it says nothing of the receiver.
      breaker.record(job.endpointId, result.outcome === 'refused' ? null : result.responseStatus !== null)
      await record(result)
      log.info(
        { ...job, attempt, outcome: result.outcome, status: result.responseStatus, refusedAddress },
        'webhook attempt',
      )
      return result.outcome === 'delivered' ? 'done' : 'retry'
    },
  }
}

export type WebhookDispatch = ReturnType<typeof makeWebhookDispatch>
