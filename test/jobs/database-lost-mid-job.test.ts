// The database goes away while a worker is mid-job (a welcome mail; a schedule of pg-boss's fallen
// due): when the job ends, its completion (or its failure) cannot be written. The process must live
// on — an unhandled rejection would end it, as Node ends a process by default — and the outcome
// must be written once the database is back, so that a mail sent is not sent again and a mail
// refused is retried. Run as its own process, as `npm start` runs it.
import pg from 'pg'
import t from 'tap'
import { CLEAN_UP_ACCOUNTS_QUEUE } from '../../src/jobs/clean-up-accounts.ts'
import { WELCOME_EMAIL_QUEUE } from '../../src/jobs/welcome-email.ts'
import { SEND_SCHEDULED_QUEUE } from '../../src/queue/queue.ts'
import { usingPostgres } from '../helpers/build.ts'
import { eventually } from '../helpers/images.ts'
import { startPrivatePostgres } from '../helpers/private-postgres.ts'
import { startServer } from '../helpers/server-process.ts'
import { startSmtpServer } from '../helpers/smtp.ts'

const skip = usingPostgres
  ? false
  : 'runs in the PostgreSQL run only (it stops a cluster of its own, started from the PostgreSQL binaries)'

for (const answer of ['deliver', 'refuse'] as const) {
  const ending =
    answer === 'deliver'
      ? 'the mail is sent: the job is completed once the database is back'
      : 'the mail is refused: the job is failed once the database is back, and retried'
  t.test(`the database stops mid-send, then ${ending}`, { skip }, async (t) => {
    const postgres = await startPrivatePostgres(t)
    const smtp = await startSmtpServer()
    t.teardown(smtp.close)
    smtp.holdReplies = true
    const server = await startServer({
      DATABASE_URL: postgres.url,
      DATABASE_TIMEOUT_MS: '1000',
      SMTP_URL: smtp.url,
      JWT_SECRET: 'database-lost-test-secret-database-lost-01',
    })
    t.teardown(() => server.child.kill('SIGKILL'))
    const email = `mid-job-${answer}@example.com`
    const registered = await fetch(`${server.url}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: 'a long enough password', name: 'Mid job' }),
    })
    t.equal(registered.status, 201)
    const userId = ((await registered.json()) as { data: { user: { id: string } } }).data.user.id

    await smtp.mailHeld()
    await postgres.stop()
    smtp.holdReplies = false
    smtp.release(answer)
    const exited = server.exit.then((code) => `exited with ${code}`)
    const retrying = eventually(async () =>
      server.logs.some((entry) => entry.jobId === userId && /outcome not recorded/.test(String(entry.msg))),
    )
    t.equal(
      await Promise.race([exited, retrying.then((logged) => (logged ? 'retrying' : 'not logged'))]),
      'retrying',
      'the process lives on, and tries again to record the outcome',
    )

    await postgres.start()
    const client = new pg.Client({ connectionString: postgres.url })
    await client.connect()
    t.teardown(() => client.end())
    const job = async () =>
      (
        await client.query<{ state: string; retries: number }>(
          'select state::text, retry_count as retries from pgboss.job where name = $1 and id::text = $2',
          [WELCOME_EMAIL_QUEUE, userId],
        )
      ).rows[0]
    t.ok(await eventually(async () => (await job())?.state === 'completed'), 'the job completed')
    // A refused mail's failure was written, and the job run again on its retry, not at its expiry.
    t.equal((await job())?.retries, answer === 'deliver' ? 0 : 1, answer === 'deliver' ? 'at once' : 'on its retry')
    t.equal(smtp.mailsTo(email).length, 1, 'the mail was delivered once')
    t.equal(server.child.exitCode, null, 'the process is still running')
    t.equal((await fetch(`${server.url}/health`)).status, 200, 'and healthy')
  })
}

t.test(
  'the database stops while a schedule fallen due is being queued: it is queued once the database is back',
  { skip },
  async (t) => {
    const postgres = await startPrivatePostgres(t)
    const server = await startServer({
      DATABASE_URL: postgres.url,
      DATABASE_TIMEOUT_MS: '1000',
      JWT_SECRET: 'database-lost-test-secret-database-lost-01',
    })
    t.teardown(() => server.child.kill('SIGKILL'))
    const connect = async () => {
      const client = new pg.Client({ connectionString: postgres.url })
      client.on('error', () => {}) // terminated by the stop, on purpose
      await client.connect()
      t.teardown(() => client.end().catch(() => {}))
      return client
    }
    // A schedule fallen due, as pg-boss queues it, naming a job of the hourly clean-up; the clean-up
    // queue's table is locked, so the worker's insert of that job waits until the database stops.
    const client = await connect()
    const [queue] = (
      await client.query<{ partition: string }>(
        'select partition_name as partition from pgboss.queue where name = $1',
        [CLEAN_UP_ACCOUNTS_QUEUE],
      )
    ).rows
    const locker = await connect()
    await locker.query('BEGIN')
    await locker.query(`LOCK TABLE pgboss.${queue!.partition} IN ACCESS EXCLUSIVE MODE`)
    const scheduled = { name: CLEAN_UP_ACCOUNTS_QUEUE, data: { scheduledBy: 'the test' } }
    const [due] = (
      await client.query<{ id: string }>('insert into pgboss.job (name, data) values ($1, $2) returning id::text', [
        SEND_SCHEDULED_QUEUE,
        scheduled,
      ])
    ).rows
    // By queue name too: without it the query reads every queue's table, the locked one among them.
    const stateOf = async (id: string, reader: pg.Client) =>
      (
        await reader.query<{ state: string }>('select state::text from pgboss.job where name = $1 and id = $2', [
          SEND_SCHEDULED_QUEUE,
          id,
        ])
      ).rows[0]?.state
    t.ok(await eventually(async () => (await stateOf(due!.id, client)) === 'active'), 'taken: its insert waits')

    await postgres.stop()
    const exited = server.exit.then((code) => `exited with ${code}`)
    const retrying = eventually(async () =>
      server.logs.some((entry) => entry.jobId === due!.id && /outcome not recorded/.test(String(entry.msg))),
    )
    t.equal(
      await Promise.race([exited, retrying.then((logged) => (logged ? 'retrying' : 'not logged'))]),
      'retrying',
      'the process lives on, and tries again to record the outcome',
    )

    await postgres.start()
    const after = await connect()
    t.ok(await eventually(async () => (await stateOf(due!.id, after)) === 'completed'), 'queued on a retry')
    const queued = await after.query<{ n: number }>(
      "select count(*)::int as n from pgboss.job where name = $1 and data->>'scheduledBy' = 'the test'",
      [CLEAN_UP_ACCOUNTS_QUEUE],
    )
    t.equal(queued.rows[0]!.n, 1, 'the job it names, once')
    t.equal(server.child.exitCode, null, 'the process is still running')
  },
)
