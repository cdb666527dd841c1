// The database restarts under a running instance: while it is down, requests that need it fail
// fast with 503 in the envelope and GET /health says so; when it is back the instance recovers by
// itself — no restart, no lost job, no half-written registration.
//
// The test starts a PostgreSQL cluster of its own (test/helpers/private-postgres.ts) so it can stop
// it; it needs no DATABASE_URL. It runs once, in the PostgreSQL run (`DATABASE_URL` set): that is
// where PostgreSQL is installed, while the embedded run is the one that needs nothing installed.
import { randomUUID } from 'node:crypto'
import type { InjectOptions } from 'fastify'
import pg from 'pg'
import t from 'tap'
import { build, usingPostgres } from '../helpers/build.ts'
import { registerUser } from '../helpers/accounts.ts'
import { eventually } from '../helpers/images.ts'
import { startPrivatePostgres } from '../helpers/private-postgres.ts'
import { startSmtpServer } from '../helpers/smtp.ts'
import { createPost } from '../helpers/posts.ts'
import { WELCOME_EMAIL_QUEUE } from '../../src/jobs/welcome-email.ts'

const skip = usingPostgres
  ? false
  : 'runs in the PostgreSQL run only (it starts a cluster of its own from the PostgreSQL binaries)'

t.test('Postgres stops and starts again under a running instance', { skip }, async (t) => {
  const postgres = await startPrivatePostgres(t)
  const smtp = await startSmtpServer()
  t.teardown(smtp.close)
  // The mail server refuses every mail at first, so the welcome job is still pending (retrying)
  // when the database goes away.
  smtp.refuseAll = true
  const timeoutMs = 1000
  const app = await build(
    t,
    { DATABASE_URL: postgres.url, DATABASE_TIMEOUT_MS: String(timeoutMs), SMTP_URL: smtp.url },
    { jobs: { pollingIntervalSeconds: 0.5, retryDelaySeconds: 1 } },
  )
  const { boss } = app.services.queue
  const before = await registerUser(app, 'before')
  t.ok(
    await eventually(async () => smtp.refusedCount(before.email) > 0),
    'the welcome job ran once and was refused: it waits for a retry',
  )
  const post = await createPost(app, before, { status: 'published', title: 'Cached before the outage' })
  t.equal(
    (await app.inject({ method: 'GET', url: `/posts/${post.id}` })).statusCode,
    200,
    'a post read once, so cached',
  )

  /** An answer, or a failure if none came within ten times the database timeout (a hang). */
  const answered = async (request: InjectOptions) => {
    let timer: NodeJS.Timeout | undefined
    const hang = new Promise<never>(
      (_, reject) => (timer = setTimeout(() => reject(new Error('no answer: the request hangs')), timeoutMs * 10)),
    )
    try {
      return await Promise.race([app.inject(request), hang])
    } finally {
      clearTimeout(timer)
    }
  }
  // A registration in flight when the database stops: its transaction has written the user and
  // waits to enqueue the welcome job, held by a lock the test takes on pg-boss's job table.
  const inFlight = `in-flight-${randomUUID()}@example.com`
  const locker = new pg.Client({ connectionString: postgres.url })
  locker.on('error', () => {}) // terminated by the stop, on purpose
  await locker.connect()
  await locker.query('BEGIN')
  await locker.query('LOCK TABLE pgboss.job IN SHARE MODE')
  const register = (email: string) => ({
    method: 'POST' as const,
    url: '/register',
    payload: { email, password: 'a long enough password', name: 'During' },
  })
  const held = app.inject(register(inFlight))
  const waitingForLock = async () =>
    (
      await locker.query<{ n: number }>(
        "select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and query ilike '%pgboss%job%'",
      )
    ).rows[0]!.n > 0
  t.ok(await eventually(waitingForLock, 10_000, 20), 'the registration waits inside its transaction')

  await postgres.stop()
  const email = `during-${randomUUID()}@example.com`
  const down = {
    health: await answered({ method: 'GET', url: '/health' }),
    me: await answered({ method: 'GET', url: '/me', headers: before.auth }),
    posts: await answered({ method: 'GET', url: '/posts' }),
    register: await answered(register(email)),
    login: await answered({
      method: 'POST',
      url: '/login',
      payload: { email: before.email, password: before.password },
    }),
  }
  for (const [name, response] of Object.entries(down)) {
    t.equal(response.statusCode, 503, `${name}: 503 while the database is down`)
    t.match(
      response.json(),
      {
        data: null,
        error: { code: 'SERVICE_UNAVAILABLE', details: [{ path: 'database' }] },
        meta: { requestId: String },
      },
      `${name}: in the envelope`,
    )
  }
  const heldAnswer = await held
  t.equal(heldAnswer.statusCode, 503, 'the registration in flight when the database stopped: 503')
  t.match(heldAnswer.json(), { data: null, error: { code: 'SERVICE_UNAVAILABLE' } }, 'in the envelope')
  const refusedToo = [1, 2].map(() => `during-${randomUUID()}@example.com`)
  for (const other of refusedToo)
    t.equal((await answered(register(other))).statusCode, 503, 'another registration while down: 503')
  t.equal(down.me.headers['retry-after'], '5', 'with Retry-After')
  t.equal((await answered({ method: 'GET', url: '/ping' })).statusCode, 200, 'what needs no database still answers')
  const cached = await answered({ method: 'GET', url: `/posts/${post.id}` })
  t.equal(cached.statusCode, 200, 'a cached post is still read while the database is down')
  t.equal(cached.json().data.title, 'Cached before the outage')
  t.equal(
    (await answered({ method: 'GET', url: `/posts/${randomUUID()}` })).statusCode,
    503,
    'a post not in the cache is 503',
  )

  await postgres.start()
  smtp.refuseAll = false
  t.ok(
    await eventually(async () => (await app.inject({ method: 'GET', url: '/health' })).statusCode === 200),
    'GET /health is 200 again, without a restart',
  )
  t.equal(
    (await app.inject({ method: 'GET', url: '/me', headers: before.auth })).statusCode,
    200,
    'sessions from before the outage still work',
  )
  // Each refused registration happened entirely or not at all: a user row without its welcome
  // job (or a job without its user) would be a half-written one.
  const { prisma } = app.services.database
  const refused = [inFlight, email, ...refusedToo]
  for (const address of refused) {
    const users = await prisma.user.count({ where: { email: address } })
    const [{ jobs }] = await prisma.$queryRaw<
      [{ jobs: number }]
    >`select count(*)::int as jobs from pgboss.job where name = ${WELCOME_EMAIL_QUEUE} and data->>'email' = ${address}`
    t.same(
      { users, jobs },
      users === 0 ? { users: 0, jobs: 0 } : { users: 1, jobs: 1 },
      `${address}: the user and the welcome job, both or neither`,
    )
  }
  const registeredAgain: string[] = []
  for (const address of refused) {
    const again = await app.inject({
      method: 'POST',
      url: '/register',
      payload: { email: address, password: 'a long enough password', name: 'After' },
    })
    t.equal(again.statusCode, 201, `${address} registers after the outage`)
    if (again.statusCode === 201) registeredAgain.push(again.json().data.user.id as string)
  }

  t.ok(
    await eventually(async () => (await boss.getJobById(WELCOME_EMAIL_QUEUE, before.id))?.state === 'completed'),
    'the job pending during the outage completed',
  )
  const completed = async () =>
    (await Promise.all(registeredAgain.map((id) => boss.getJobById(WELCOME_EMAIL_QUEUE, id)))).every(
      (job) => job?.state === 'completed',
    )
  t.ok(await eventually(completed), 'so did those enqueued after it')
  t.equal(smtp.mailsTo(before.email).length, 1, 'one welcome mail for the user registered before the outage')
  t.same(
    refused.map((address) => smtp.mailsTo(address).length),
    refused.map(() => 1),
    'one for each user registered after it',
  )
})
