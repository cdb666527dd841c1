// Which database errors mean "not available now" (answered 503 SERVICE_UNAVAILABLE with
// Retry-After) and which are bugs (500), from PostgreSQL's errcodes table; and a database that
// refuses connections (SQLSTATE 55000) seen by /health and by any request, whose error text stays
// in the log. Every error is raised by the database itself, through the driver and Prisma.
import { randomUUID } from 'node:crypto'
import pg from 'pg'
import t from 'tap'
import { handlers } from '../../src/handlers/index.ts'
import { build, usingPostgres } from '../helpers/build.ts'
import { eventually } from '../helpers/images.ts'
import { startPrivatePostgres } from '../helpers/private-postgres.ts'

/** SQLSTATEs of a database that cannot serve now but may soon: retrying is the right move. */
const UNAVAILABLE = {
  '08000': 'connection_exception',
  '08006': 'connection_failure',
  '25006': 'read_only_sql_transaction (a standby, during a failover)',
  '53000': 'insufficient_resources',
  '53100': 'disk_full',
  '53200': 'out_of_memory',
  '53300': 'too_many_connections',
  '55000': 'object_not_in_prerequisite_state (database not accepting connections)',
  '55P03': 'lock_not_available',
  '57000': 'operator_intervention',
  '57014': 'query_canceled',
  '57P01': 'admin_shutdown',
  '57P02': 'crash_shutdown',
  '57P03': 'cannot_connect_now',
  '57P04': 'database_dropped',
  '57P05': 'idle_session_timeout',
}
/** Faults of ours or of the data: a 500, logged as errors. */
const BUGS = {
  '22012': 'division_by_zero',
  '23514': 'check_violation',
  '42601': 'syntax_error',
  '58030': 'io_error',
  XX000: 'internal_error',
}

t.test('a database error is 503 when the database is not available now, 500 otherwise', async (t) => {
  const app = await build(
    t,
    {},
    {
      internalErrorsExpected: true,
      handlers: {
        // Raises the SQLSTATE named in the request, in the database.
        ping: async (request) => {
          const code = String(request.headers['x-sqlstate']).replace(/[^0-9A-Z]/g, '')
          await request.server.services.database.prisma.$executeRawUnsafe(
            `do $$ begin raise exception 'raised by the test' using errcode = '${code}'; end $$`,
          )
          return handlers.ping(request, undefined as never)
        },
      },
    },
  )
  const raise = (code: string) => app.inject({ method: 'GET', url: '/ping', headers: { 'x-sqlstate': code } })
  for (const [code, name] of Object.entries(UNAVAILABLE)) {
    const response = await raise(code)
    t.equal(response.statusCode, 503, `${code} ${name}`)
    t.match(response.json(), { data: null, error: { code: 'SERVICE_UNAVAILABLE', details: [{ path: 'database' }] } })
    t.equal(response.headers['retry-after'], '5')
  }
  for (const [code, name] of Object.entries(BUGS)) {
    const response = await raise(code)
    t.equal(response.statusCode, 500, `${code} ${name}`)
    t.notMatch(response.body, /raised by the test/, 'no driver text')
  }
})

const skip = usingPostgres
  ? false
  : 'runs in the PostgreSQL run only (it starts a cluster of its own from the PostgreSQL binaries)'

t.test('a database not accepting connections: 503 everywhere, its error text only in the log', { skip }, async (t) => {
  const postgres = await startPrivatePostgres(t)
  const lines: string[] = []
  const app = await build(
    t,
    { DATABASE_URL: postgres.url, DATABASE_TIMEOUT_MS: '1000', LOG_LEVEL: 'warn' },
    { logDestination: { write: (line) => lines.push(line) } },
  )
  // The operator's session, on another database of the cluster.
  const admin = new pg.Client({ connectionString: postgres.url.replace(/\/postgres$/, '/template1') })
  await admin.connect()
  t.teardown(() => admin.end())
  await admin.query('alter database postgres allow_connections false')
  await admin.query("select pg_terminate_backend(pid) from pg_stat_activity where datname = 'postgres'")

  const health = await app.inject({ method: 'GET', url: '/health' })
  t.equal(health.statusCode, 503)
  t.match(health.json(), {
    data: null,
    error: { code: 'SERVICE_UNAVAILABLE', details: [{ path: 'database', message: 'The database cannot be reached.' }] },
  })
  t.notMatch(health.body, /accepting|postgres|"x"|connections/, 'no driver text for anyone to read')
  t.equal(health.headers['retry-after'], '5')
  for (const request of [
    { method: 'GET' as const, url: `/posts/${randomUUID()}` },
    {
      method: 'POST' as const,
      url: '/register',
      payload: { email: `${randomUUID()}@example.com`, password: 'a long enough password', name: 'During' },
    },
  ]) {
    const response = await app.inject(request)
    t.equal(response.statusCode, 503, `${request.method} ${request.url}`)
    t.match(response.json(), { error: { code: 'SERVICE_UNAVAILABLE' } })
  }
  t.ok(
    lines.some((line) => line.includes('is not currently accepting connections')),
    'the reason is in the log',
  )

  await admin.query('alter database postgres allow_connections true')
  t.ok(
    await eventually(async () => (await app.inject({ method: 'GET', url: '/health' })).statusCode === 200),
    'back by itself',
  )
})

t.test('a transaction that cannot start in time (every connection busy in another) is 503, not 500', async (t) => {
  const app = await build(
    t,
    { DATABASE_POOL_MAX: '2' },
    {
      handlers: {
        // Waits at most 100 ms to start a transaction while the test holds the only one it may get.
        ping: async (request) => {
          await request.server.services.database.prisma.$transaction(async (tx) => tx.$queryRaw`select 1`, {
            maxWait: 100,
          })
          return handlers.ping(request, undefined as never)
        },
      },
    },
  )
  const { prisma } = app.services.database
  // PGlite has one connection; on PostgreSQL, hold both connections of the pool.
  const holders = usingPostgres ? 2 : 1
  let release!: () => void
  const released = new Promise<void>((resolve) => (release = resolve))
  let started = 0
  const held = Array.from({ length: holders }, () =>
    prisma.$transaction(
      async (tx) => {
        await tx.$queryRaw`select 1`
        started++
        await released
      },
      { maxWait: 30_000, timeout: 60_000 },
    ),
  )
  t.teardown(async () => {
    release()
    await Promise.all(held)
  })
  await eventually(async () => started === holders)
  const response = await app.inject({ method: 'GET', url: '/ping' })
  t.equal(response.statusCode, 503)
  t.match(response.json(), { data: null, error: { code: 'SERVICE_UNAVAILABLE' } })
})
