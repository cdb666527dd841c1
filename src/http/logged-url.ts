// What the request log writes of a request (Fastify's own fields), with the secrets a URL may carry
// cut out: a client may put its token in the query (RFC 6750 §2.3's `access_token`, refused here,
// but logged as it arrived), and the links mailed carry one-time tokens (`token`). Linear: each
// pattern is a literal prefix followed by one character class.
import type { FastifyRequest } from 'fastify'

const SECRET_PARAMETER = /([?&](?:access_token|token|refresh_token)=)[^&#]*/gi
const API_TOKEN = /blog_[A-Za-z0-9]+/g

export const redactUrl = (url: string) =>
  url.replace(SECRET_PARAMETER, '$1[redacted]').replace(API_TOKEN, 'blog_[redacted]')

/** Fastify's default `req` serializer, the URL redacted. */
export function serializeRequest(request: FastifyRequest) {
  return {
    method: request.method,
    url: redactUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  }
}
