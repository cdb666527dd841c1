// Secrets never reach a log line, whoever logs what: a field named like a secret, at the first three
// levels of a logged object, is written as '[redacted]'; so are a logged `body` and the cookies a
// response sets. pino's own `redact` option did this through a path engine that cost about 25 µs
// per line, most of a request's CPU at the default level (two lines per request). This walk costs
// what its few key lookups cost, and copies only the objects on the way to a secret: the logged
// object itself is never changed.
import pino from 'pino'
import type { FastifyReply, FastifyRequest } from 'fastify'

export const CENSOR = '[redacted]'

const SECRET_FIELDS = new Set([
  'password',
  'passwordHash',
  'accessToken',
  'refreshToken',
  'token',
  'authorization',
  'cookie',
])

/** Levels below the logged object (0) at which a secret's name is looked for: 0, 1 and 2. */
const DEEPEST = 2

type Parent = 'req' | 'res' | 'headers' | 'other'

function hidden(key: string, value: unknown, level: number, parent: Parent, grandparent: Parent): boolean {
  // pino writes no top-level field that is undefined (as pino's redact did, nothing in its place).
  if (value === undefined && level === 0) return false
  if (SECRET_FIELDS.has(key)) return true
  if (key === 'body') return level === 0 || (level === 1 && parent === 'req')
  return key === 'set-cookie' && level === 2 && parent === 'headers' && grandparent === 'res'
}

const parentOf = (key: string): Parent => (key === 'req' || key === 'res' || key === 'headers' ? key : 'other')

/** `value` with its secrets replaced (a copy where one was found), or `value` itself when it has none. */
function redacted(value: unknown, level: number, parent: Parent, grandparent: Parent): unknown {
  if (level > DEEPEST || value === null || typeof value !== 'object') return value
  let copy: Record<string, unknown> | unknown[] | undefined
  for (const key of Object.keys(value)) {
    const before = (value as Record<string, unknown>)[key]
    const after = hidden(key, before, level, parent, grandparent)
      ? CENSOR
      : redacted(before, level + 1, parentOf(key), parent)
    if (after === before) continue
    copy ??= Array.isArray(value) ? [...value] : { ...value }
    ;(copy as Record<string, unknown>)[key] = after
  }
  return copy ?? value
}

/** Keys pino hands to a serializer after the formatter: redacted there (below), not walked here. */
const SERIALIZED = new Set(['req', 'res', 'err'])

/** The logged object (a log call's first argument, or a child logger's bindings) without secrets. */
export function redactSecrets(logged: Record<string, unknown>): Record<string, unknown> {
  let copy: Record<string, unknown> | undefined
  for (const key of Object.keys(logged)) {
    if (SERIALIZED.has(key)) continue
    const before = logged[key]
    const after = hidden(key, before, 0, 'other', 'other') ? CENSOR : redacted(before, 1, parentOf(key), 'other')
    if (after === before) continue
    copy ??= { ...logged }
    copy[key] = after
  }
  return copy ?? logged
}

/** What one key's value becomes when it is logged under that key: the same rules, a level down. */
const redactedUnder = <T>(key: string, value: T) => redacted(value, 1, parentOf(key), 'other') as T

// Fastify's own serializers (fastify/lib/logger-pino.js), the same fields: they run after pino's
// log formatter, so what they return is redacted here, as it is logged under its key.
const asRequest = (request: FastifyRequest) => ({
  method: request.method,
  url: request.url,
  version: request.headers?.['accept-version'] as string | undefined,
  host: request.host,
  remoteAddress: request.ip,
  remotePort: request.socket ? request.socket.remotePort : undefined,
})
const asReply = (reply: Pick<FastifyReply, 'statusCode'>) => ({ statusCode: reply.statusCode })

/** pino options that redact every line: the formatter for plain fields, serializers for the rest. */
export const redactingLoggerOptions = {
  formatters: { log: redactSecrets, bindings: redactSecrets },
  serializers: {
    req: (request: FastifyRequest) => redactedUnder('req', asRequest(request)),
    res: (reply: Pick<FastifyReply, 'statusCode'>) => redactedUnder('res', asReply(reply)),
    err: (error: Error) => redactedUnder('err', pino.stdSerializers.err(error)),
  },
}
