// What browsers are told: security headers on every answer and which other origins may call the
// API from a page (@fastify/cors, origins from CORS_ORIGINS).
import fastifyCors from '@fastify/cors'
import type { FastifyInstance } from 'fastify'
import type { Config } from '../../config.ts'

/**
 * The security headers of every answer: those helmet sends by default, with a CSP for an API.
 * A constant set, so built once rather than by helmet's middleware on each request.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  // The API sends JSON and images, never pages: nothing may load from it or frame it.
  // /docs, the one HTML page, sets a CSP of its own (src/http/docs.ts).
  'content-security-policy': "default-src 'none';frame-ancestors 'none'",
  'cross-origin-opener-policy': 'same-origin',
  // Thumbnails are meant to be shown by blog front ends on other origins (<img src>).
  'cross-origin-resource-policy': 'cross-origin',
  'origin-agent-cluster': '?1',
  'referrer-policy': 'no-referrer',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-frame-options': 'SAMEORIGIN',
  'x-permitted-cross-domain-policies': 'none',
  // The filter of old browsers did more harm than good: turned off.
  'x-xss-protection': '0',
}

export function registerSecurityHeaders(app: FastifyInstance) {
  app.addHook('onRequest', (_request, reply, done) => {
    reply.headers(SECURITY_HEADERS)
    done()
  })
}

/**
 * Every response header of ours a browser client may need to read: it sees only the CORS-safelisted
 * ones (Cache-Control, Content-Type, …) unless they are listed here. Each header the spec documents
 * must be here (test/http/headers/browser-policy.test.ts checks it).
 */
const EXPOSED = [
  'api-version',
  'x-request-id',
  'etag',
  'location',
  'allow',
  'www-authenticate',
  'retry-after',
  'ratelimit-limit',
  'ratelimit-remaining',
  'ratelimit-reset',
  'ratelimit',
  'ratelimit-policy',
]

export async function registerCors(app: FastifyInstance, config: Pick<Config, 'corsOrigins'>) {
  // No origins configured: no CORS headers at all, so browsers keep the same-origin rule.
  if (config.corsOrigins.length === 0) return
  await app.register(fastifyCors, {
    origin: config.corsOrigins.includes('*') ? '*' : config.corsOrigins,
    methods: ['GET', 'HEAD', 'POST', 'PATCH', 'PUT', 'DELETE'],
    allowedHeaders: ['authorization', 'content-type', 'if-match', 'if-none-match', 'if-modified-since', 'x-request-id'],
    exposedHeaders: EXPOSED,
    // Tokens travel in the Authorization header, never in cookies.
    credentials: false,
    maxAge: 600,
  })
}
