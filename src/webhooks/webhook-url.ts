// The URL rules of a webhook endpoint, checked when it is saved (400 WEBHOOK_URL_FORBIDDEN). The
// addresses are checked again at every delivery (delivery.ts): DNS may change in between.
import { isIP } from 'node:net'
import { ApiError } from '../errors/api-error.ts'
import { forbiddenReason } from './address-policy.ts'
import type { Logger } from '../log.ts'
import type { Resolve } from './resolve.ts'

export interface UrlPolicy {
  /** WEBHOOK_ALLOW_PRIVATE_NETWORKS: http and any address are accepted (tests, intranets). */
  allowPrivateNetworks: boolean
  resolve: Resolve
  /** Where the address a name resolved to is written when a rule refuses it. */
  log?: Logger
}

const forbidden = (message: string) =>
  new ApiError(400, 'WEBHOOK_URL_FORBIDDEN', 'Webhooks are delivered only to https URLs on public addresses.', [
    { path: '/body/url', message },
  ])

/** The host of a parsed URL as an address or a name: `[::1]` → `::1`. */
export const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1')

/** Refuses a URL no delivery may go to; `url` has passed the schema (a URI of bounded length). */
export async function checkWebhookUrl(raw: string, policy: UrlPolicy): Promise<void> {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw forbidden('is not an absolute URL')
  }
  const schemes = policy.allowPrivateNetworks ? ['https:', 'http:'] : ['https:']
  if (!schemes.includes(url.protocol)) throw forbidden(`must start with ${schemes.join(' or ')}//`)
  if (url.username !== '' || url.password !== '') throw forbidden('must not carry credentials')
  if (raw.includes('#')) throw forbidden('must not carry a fragment')
  if (policy.allowPrivateNetworks) return
  const host = hostOf(url)
  if (isIP(host) !== 0) {
    const reason = forbiddenReason(host)
    if (reason !== null) throw forbidden(`is in a refused address block: ${reason}`)
    return
  }
  let addresses: string[]
  try {
    addresses = await policy.resolve(host)
  } catch {
    throw forbidden(`names a host that does not resolve (${host})`)
  }
  for (const address of addresses) {
    const reason = forbiddenReason(address)
    // The answer names the rule only: the address a name resolves to inside the service's
    // network is not the caller's to learn (the log has it).
    if (reason !== null) {
      policy.log?.info({ host, address, rule: reason }, 'webhook URL refused: its host resolves to a refused address')
      throw forbidden(`resolves to an address in a refused block: ${reason}`)
    }
  }
}
