// What browsers are told: security headers on every answer (@fastify/helmet) and which other
// origins may call the API from a page (@fastify/cors, origins from CORS_ORIGINS).
import fastifyCors from '@fastify/cors'
import fastifyHelmet from '@fastify/helmet'
import type { FastifyInstance } from 'fastify'
import type { Config } from '../config.ts'

export async function registerSecurityHeaders(app: FastifyInstance) {
  await app.register(fastifyHelmet, {
    // The API sends JSON and images, never pages: nothing may load from it or frame it.
    // /docs, the one HTML page, sets a CSP of its own (src/http/docs.ts).
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
    // Thumbnails are meant to be shown by blog front ends on other origins (<img src>).
    crossOriginResourcePolicy: { policy: 'cross-origin' },
  })
}

/**
 * Every response header of ours a browser client may need to read: it sees only the CORS-safelisted
 * ones (Cache-Control, Content-Type, …) unless they are listed here. Each header the spec documents
 * must be here (test/http/browser-policy.test.ts checks it).
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
]

export async function registerCors(app: FastifyInstance, config: Pick<Config, 'corsOrigins'>) {
  // No origins configured: no CORS headers at all, so browsers keep the same-origin rule.
  if (config.corsOrigins.length === 0) return
  await app.register(fastifyCors, {
    origin: config.corsOrigins.includes('*') ? '*' : config.corsOrigins,
    methods: ['GET', 'HEAD', 'POST', 'PATCH', 'PUT', 'DELETE'],
    allowedHeaders: ['authorization', 'content-type', 'if-match', 'if-none-match', 'x-request-id'],
    exposedHeaders: EXPOSED,
    // Tokens travel in the Authorization header, never in cookies.
    credentials: false,
    maxAge: 600,
  })
}
