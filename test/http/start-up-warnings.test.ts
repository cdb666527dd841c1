// A start-up logs a warning only when something is wrong. fastify-openapi-glue warns for each media
// type of the spec without a request parser, and counts the answers' types too (the feed's, the
// images'): six false warnings at every start, until the routes gave it JSON answers only
// (src/http/routes.ts). A request body of a type with no parser is still reported.
import Fastify from 'fastify'
import t from 'tap'
import { handlers } from '../../src/handlers/index.ts'
import { registerOperations } from '../../src/http/routes.ts'
import { loadSpec, type OperationSpec } from '../../src/spec.ts'
import { build, usingPostgres } from '../helpers/build.ts'

interface LogLine {
  level: number
  msg: string
}

const WARN = 40

t.test('the app, configured, starts without a warning', async (t) => {
  const lines: LogLine[] = []
  // As production wants it: on PostgreSQL (a fleet) an instance outside production, or without
  // PUBLIC_URL, is a warning of its own, and a true one.
  const env = {
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
    EMBEDDED_DATABASE_IN_PRODUCTION: 'true',
    SMTP_URL: 'smtp://127.0.0.1:2525',
    PUBLIC_URL: 'https://blog.example.org',
    EMAIL_VERIFICATION_URL: 'https://blog.example.org/verify?token={token}',
    PASSWORD_RESET_URL: 'https://blog.example.org/reset?token={token}',
  }
  await build(t, env, { logDestination: { write: (line) => void lines.push(JSON.parse(line)) } })
  t.same(
    lines.filter((line) => line.level >= WARN).map((line) => line.msg),
    [],
  )
})

t.test('on PostgreSQL, an instance outside production says the production checks are off', async (t) => {
  const lines: LogLine[] = []
  const env = { LOG_LEVEL: 'warn', PUBLIC_URL: 'https://blog.example.org' }
  await build(t, env, { logDestination: { write: (line) => void lines.push(JSON.parse(line)) } })
  const warned = lines.some((line) => line.level === WARN && /^NODE_ENV is not production/.test(line.msg))
  t.equal(warned, usingPostgres, usingPostgres ? 'warned' : "not on the embedded database, a developer's own")
})

t.test('a request body of a type no parser reads is still reported', async (t) => {
  const spec = loadSpec()
  const createCategory = spec.paths['/categories']!.post as OperationSpec & {
    requestBody: { content: Record<string, unknown> }
  }
  createCategory.requestBody.content = { 'application/xml': createCategory.requestBody.content['application/json'] }
  const lines: LogLine[] = []
  const app = Fastify({
    logger: { level: 'warn', stream: { write: (line: string) => void lines.push(JSON.parse(line)) } },
  })
  t.teardown(() => app.close())
  await registerOperations(app, spec, handlers, async () => {})
  const warnings = lines.filter((line) => line.level >= WARN).map((line) => line.msg)
  t.ok(warnings.includes("ContentTypeParser for 'application/xml' not found"), warnings.join('\n'))
  t.notOk(
    warnings.some((warning) => /image\/|atom/.test(warning)),
    'and nothing about the types of answers',
  )
})
