// Each request's id (logs, the X-Request-Id answer header, meta.requestId). A caller's own
// X-Request-Id is kept, so one id follows a request across services, when it is sane and comes from
// someone whose headers the service believes: any caller when TRUST_PROXY names no proxy (the
// service faces its clients directly), and only the proxies it names when it does (the proxy then
// decides which id a request carries; one sent straight to the service, past the proxy, is not
// believed, as its X-Forwarded-For is not). Otherwise the service makes its own. Fastify calls this with Node's IncomingMessage, before
// request.ip exists: the peer is the socket's address.
import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { proxyTrust } from './proxies.ts'

/** A caller's request id we keep: short enough for meta.requestId (100), inert in logs and headers. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,100}$/

/** Fastify's genReqId for the proxies of config.trustProxy. */
export function requestIds(trustProxy: false | readonly string[]): (request: IncomingMessage) => string {
  const proxies = proxyTrust(trustProxy)
  return (request) => {
    const given = request.headers['x-request-id']
    const kept =
      typeof given === 'string' &&
      REQUEST_ID.test(given) &&
      (!proxies.configured || proxies.trusts(request.socket.remoteAddress))
    return kept ? given : randomUUID()
  }
}
