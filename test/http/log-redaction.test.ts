// The log redaction (src/http/log-redaction.ts) writes the very lines pino's own `redact` option
// wrote with the paths it replaced — checked line for line on a corpus of logged objects — and
// never changes the object it was given. The whole app's lines are checked in logging.test.ts.
import pino from 'pino'
import t from 'tap'
import { redactSecrets, redactingLoggerOptions } from '../../src/http/log-redaction.ts'

/** The paths the app gave pino's `redact` before: what the new redaction must match. */
const SECRET_FIELDS = ['password', 'passwordHash', 'accessToken', 'refreshToken', 'token', 'authorization', 'cookie']
const PINO_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  'body',
  'req.body',
  ...SECRET_FIELDS.flatMap((field) => [field, `*.${field}`, `*.*.${field}`]),
]

function linesOf(options: pino.LoggerOptions, logged: object[]): string[] {
  const lines: string[] = []
  // A fixed time and no pid or hostname: lines from two loggers compare byte for byte.
  const log = pino(
    { ...options, base: { reqId: 'r-1' }, timestamp: () => ',"time":0' },
    { write: (line: string) => void lines.push(line) },
  )
  for (const object of logged) log.info(object, 'line')
  return lines
}

const corpus: Record<string, unknown>[] = [
  { password: 'p', name: 'kept' },
  { body: { email: 'a@b.c', password: 'p' } },
  { user: { email: 'a@b.c', passwordHash: 'h', token: 't' }, count: 3 },
  { reply: { data: { accessToken: 'a', refreshToken: 'r', user: { email: 'e' } } } },
  { headers: { authorization: 'Bearer x', cookie: 'c', 'x-request-id': 'id' } },
  { deep: { a: { b: { password: 'below the third level: kept, as before' } } } },
  { list: [{ token: 't' }, { name: 'n' }], nested: [[{ password: 'level 3: kept' }]] },
  { other: { body: 'a body below the top is kept unless under req' } },
  { resource: { headers: { 'set-cookie': 'kept: not under res' } } },
  { token: null, password: undefined, cookie: 0 },
  { user: { password: undefined, name: 'n' }, reply: { data: { token: undefined } } },
  { nothing: 'secret', at: ['all'] },
]

t.test('the same lines as pino’s redact with the paths it replaced', async (t) => {
  const before = linesOf({ redact: { paths: PINO_PATHS, censor: '[redacted]' } }, corpus)
  const after = linesOf({ formatters: redactingLoggerOptions.formatters }, corpus)
  t.equal(after.length, corpus.length)
  for (const [i, line] of after.entries()) t.equal(line, before[i], JSON.stringify(corpus[i]))
})

t.test('the logged object is never changed; one without secrets is passed on as it is', async (t) => {
  const logged = { reply: { data: { accessToken: 'a', user: { email: 'e' } } }, count: 1 }
  const copy = structuredClone(logged)
  const redacted = redactSecrets(logged)
  t.same(logged, copy, 'unchanged')
  t.not(redacted, logged)
  t.equal(redacted.count, 1)
  t.equal((redacted.reply as typeof logged.reply).data.accessToken, '[redacted]')
  const clean = { method: 'GET', nested: { url: '/ping' } }
  t.equal(redactSecrets(clean), clean, 'no secret: no copy')
})

t.test('work is bounded by the keys of the first three levels, however deep the object', async (t) => {
  let reads = 0
  const counted = (depth: number): Record<string, unknown> =>
    new Proxy(
      { a: depth === 0 ? 'leaf' : counted(depth - 1), b: 1 },
      { ownKeys: (target) => (reads++, Reflect.ownKeys(target)) },
    )
  redactSecrets({ top: counted(1000) })
  t.ok(reads <= 3, `${reads} objects walked`)
})

t.test('what Fastify’s serializers return is redacted as logged under their key', async (t) => {
  const error = Object.assign(new Error('boom'), { password: 'p', detail: { token: 't' } })
  const serialized = redactingLoggerOptions.serializers.err(error) as Record<string, unknown>
  t.equal(serialized.password, '[redacted]')
  t.same(serialized.detail, { token: '[redacted]' })
  t.equal(serialized.message, 'boom')
})
