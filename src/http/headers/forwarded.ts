// A forwarding header the service does not believe is a sign of a proxy TRUST_PROXY fails to name:
// behind it every client counts as the proxy's address, and one abuser's wrong passwords use up
// LOGIN_LIMIT_PER_ADDRESS for everybody. Such a request is logged at warn level with the fix:
// X-Forwarded-For from a peer TRUST_PROXY does not name (unset included), and Forwarded or X-Real-IP
// without X-Forwarded-For from any peer (the service reads a client's address from X-Forwarded-For
// only). The log stays bounded whoever sends the headers: a peer is warned of once an hour at most,
// peers are remembered in a bounded LRU, and at most 10 warnings a minute go out in all (those left
// out are counted in the next one). A request without these headers costs three property reads, its
// peer's address is not even looked up.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { LRUCache } from 'lru-cache'
import { proxyTrust, shownAddress, type Proxies } from './proxies.ts'

/** A peer is warned of again at most this often. */
export const REPEAT_INTERVAL_MS = 60 * 60 * 1000
/** At most this many warnings a minute in all, whatever the number of peers. */
export const WARNINGS_PER_MINUTE = 10
/** Peers remembered at most (the least recently seen are forgotten first): bounds the memory. */
export const PEERS_REMEMBERED = 10_000
const MINUTE_MS = 60_000

export interface WarningPace {
  intervalMs: number
  perMinute: number
  peers: number
  /** The clock, in milliseconds (tests move it). */
  now: () => number
}

/** Whether a peer's warning goes out now: once per peer per interval, a bounded number a minute in all. */
export class WarningGate {
  readonly #pace: WarningPace
  readonly #warnedAt: LRUCache<string, number>
  #minuteStart = -Infinity
  #inMinute = 0
  #leftOut = 0

  constructor(pace: Partial<WarningPace> = {}) {
    this.#pace = {
      intervalMs: REPEAT_INTERVAL_MS,
      perMinute: WARNINGS_PER_MINUTE,
      peers: PEERS_REMEMBERED,
      now: Date.now,
      ...pace,
    }
    this.#warnedAt = new LRUCache({ max: this.#pace.peers })
  }

  /**
   * undefined: no warning now (the peer was warned of within the interval, or the minute's warnings
   * are spent). Otherwise the warning goes out, and this is the number of warnings the cap left out
   * since the previous one.
   */
  admit(peer: string): number | undefined {
    const now = this.#pace.now()
    const last = this.#warnedAt.get(peer)
    if (last !== undefined && now - last < this.#pace.intervalMs) return undefined
    if (now - this.#minuteStart >= MINUTE_MS) {
      this.#minuteStart = now
      this.#inMinute = 0
    }
    if (this.#inMinute >= this.#pace.perMinute) {
      this.#leftOut++
      return undefined
    }
    this.#inMinute++
    this.#warnedAt.set(peer, now)
    const leftOut = this.#leftOut
    this.#leftOut = 0
    return leftOut
  }
}

type Header = 'X-Forwarded-For' | 'Forwarded' | 'X-Real-IP'

/** The forwarding header of a request that the service does not believe; undefined if none. */
function unbelieved(headers: FastifyRequest['headers'], peer: string, proxies: Proxies): Header | undefined {
  if (headers['x-forwarded-for'] !== undefined) return proxies.trusts(peer) ? undefined : 'X-Forwarded-For'
  if (headers.forwarded !== undefined) return 'Forwarded'
  return headers['x-real-ip'] !== undefined ? 'X-Real-IP' : undefined
}

/** What the header means and the fix, for the operator. */
function warning(header: Header, peer: string, proxies: Proxies): string {
  if (header === 'X-Forwarded-For') {
    const named = proxies.configured ? 'which TRUST_PROXY does not name' : 'while TRUST_PROXY is unset'
    return (
      `X-Forwarded-For from ${peer}, ${named}: the address limits count ${peer}, not the client it names; ` +
      `if ${peer} is your proxy, add it to TRUST_PROXY, otherwise the header is ignored`
    )
  }
  const name = proxies.trusts(peer) ? '' : ' and name it in TRUST_PROXY'
  return (
    `${header} without X-Forwarded-For from ${peer}: the service reads a client's address from X-Forwarded-For ` +
    `only, so the address limits count ${peer}; if ${peer} is your proxy, have it send X-Forwarded-For${name}`
  )
}

/** Registers the warning as an onRequest hook, for the proxies of config.trustProxy. */
export function registerForwardedWarnings(
  app: FastifyInstance,
  trustProxy: false | readonly string[],
  pace: Partial<WarningPace> = {},
) {
  const proxies = proxyTrust(trustProxy)
  const gate = new WarningGate(pace)
  const warnOf = (request: FastifyRequest) => {
    const headers = request.headers
    if (
      headers['x-forwarded-for'] === undefined &&
      headers.forwarded === undefined &&
      headers['x-real-ip'] === undefined
    )
      return
    const peer = request.raw.socket.remoteAddress
    const header = peer === undefined ? undefined : unbelieved(headers, peer, proxies)
    if (peer === undefined || header === undefined) return
    const shown = shownAddress(peer)
    const leftOut = gate.admit(shown)
    if (leftOut === undefined) return
    const more = leftOut === 0 ? '' : ` (and ${leftOut} more such request(s) since the previous warning, not logged)`
    request.log.warn({ peer: shown, header, leftOut }, warning(header, shown, proxies) + more)
  }
  app.addHook('onRequest', (request, _reply, done) => {
    warnOf(request)
    done()
  })
}
