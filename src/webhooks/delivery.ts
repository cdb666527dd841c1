// One HTTP attempt to deliver a signed event. The addresses the connection may use are checked on
// the connection itself: the lookup Node's socket calls resolves the host, refuses it when any of
// its addresses is forbidden (address-policy.ts) and hands over exactly the addresses it checked,
// so DNS cannot answer one thing to the check and another to the connection. Redirects are not
// followed (Node's client never does), the receiver's body is not read, and the whole attempt is
// bounded by a timeout.
import http from 'node:http'
import https from 'node:https'
import { isIP, type LookupFunction } from 'node:net'
import { forbiddenReason } from './address-policy.ts'
import type { Resolve } from './resolve.ts'
import { hostOf } from './webhook-url.ts'

export type DeliveryOutcome = 'delivered' | 'failed' | 'refused'

export interface DeliveryResult {
  outcome: DeliveryOutcome
  responseStatus: number | null
  durationMs: number
  error: string | null
  /** The address a refused connection would have gone to: for the log, never for the stored attempt. */
  refusedAddress?: string
}

export interface DeliveryPolicy {
  allowPrivateNetworks: boolean
  resolve: Resolve
  /** How long an attempt may take, connection and answer's head included. */
  timeoutMs: number
}

/** The 5 s: a receiver that has not answered by then has failed the attempt. */
export const DELIVERY_TIMEOUT_MS = 5000

class RefusedAddress extends Error {
  constructor(
    message: string,
    readonly address: string,
  ) {
    super(message)
  }
}

/** net.connect's lookup: the host's addresses, each checked, or an error naming the one refused. */
function checkedLookup(policy: DeliveryPolicy): LookupFunction {
  return (hostname, options, callback) => {
    policy
      .resolve(hostname)
      .then((addresses) => {
        if (!policy.allowPrivateNetworks) {
          for (const address of addresses) {
            const reason = forbiddenReason(address)
            if (reason !== null)
              throw new RefusedAddress(`${hostname} resolves to an address in a refused block: ${reason}`, address)
          }
        }
        const found = addresses.map((address) => ({ address, family: isIP(address) }))
        if (options.all) return callback(null, found)
        const first = found.find((entry) => !options.family || entry.family === options.family) ?? found[0]!
        callback(null, first.address, first.family)
      })
      .catch((error: Error) => callback(error, '', 0))
  }
}

/** POSTs `body` to `url` with `headers`; never throws: every outcome is a result to record. */
export function deliver(
  url: string,
  headers: Record<string, string>,
  body: string,
  policy: DeliveryPolicy,
): Promise<DeliveryResult> {
  const started = performance.now()
  const result = (outcome: DeliveryOutcome, responseStatus: number | null, error: string | null): DeliveryResult => ({
    outcome,
    responseStatus,
    durationMs: Math.round(performance.now() - started),
    error: error && error.slice(0, 500),
  })
  let target: URL
  try {
    target = new URL(url)
  } catch {
    return Promise.resolve(result('refused', null, 'the URL is not valid'))
  }
  const host = hostOf(target)
  if (!policy.allowPrivateNetworks) {
    if (target.protocol !== 'https:') return Promise.resolve(result('refused', null, 'the URL is not https'))
    // A literal address makes no lookup: checked here.
    const reason = isIP(host) === 0 ? null : forbiddenReason(host)
    if (reason !== null)
      return Promise.resolve(result('refused', null, `${host} is in a refused address block: ${reason}`))
  }
  return new Promise((settle) => {
    let settled = false
    let timedOut = false
    const finish = (delivered: DeliveryResult) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      settle(delivered)
    }
    const client = target.protocol === 'https:' ? https : http
    const request = client.request(target, {
      method: 'POST',
      agent: false,
      lookup: checkedLookup(policy),
      headers: {
        ...headers,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
        'user-agent': 'blog-api-webhooks',
      },
    })
    const timer = setTimeout(() => {
      timedOut = true
      request.destroy()
    }, policy.timeoutMs)
    request.on('response', (response) => {
      const status = response.statusCode ?? 0
      // The status is the answer; the body is not read, and the connection is not kept.
      response.destroy()
      request.destroy()
      if (status >= 200 && status < 300) finish(result('delivered', status, null))
      else if (status >= 300 && status < 400)
        finish(result('failed', status, `the receiver answered ${status} (redirects are not followed)`))
      else finish(result('failed', status >= 100 && status <= 599 ? status : null, `the receiver answered ${status}`))
    })
    request.on('error', (error) => {
      if (error instanceof RefusedAddress)
        finish({ ...result('refused', null, error.message), refusedAddress: error.address })
      else if (timedOut) finish(result('failed', null, `no answer within ${policy.timeoutMs / 1000} s`))
      else finish(result('failed', null, error.message || 'the connection failed'))
    })
    request.on('close', () => {
      if (timedOut) finish(result('failed', null, `no answer within ${policy.timeoutMs / 1000} s`))
    })
    request.end(body)
  })
}
