// The database goes away while a worker is mid-job: when the job ends, its completion (or its
// failure) cannot be written. The process must live on — an unhandled rejection would end it, as
// Node ends a process by default — and the outcome must be written once the database is back, so
// that a mail sent is not sent again and a mail refused is retried. Run as its own process, as
// `npm start` runs it.
import pg from 'pg'
import t from 'tap'
import { WELCOME_EMAIL_QUEUE } from '../../src/jobs/welcome-email.ts'
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
    const state = async () =>
      (
        await client.query<{ state: string }>('select state::text from pgboss.job where name = $1 and id::text = $2', [
          WELCOME_EMAIL_QUEUE,
          userId,
        ])
      ).rows[0]?.state
    t.ok(await eventually(async () => (await state()) === 'completed'), 'the job completed')
    t.equal(smtp.mailsTo(email).length, 1, 'the mail was delivered once')
    t.equal(server.child.exitCode, null, 'the process is still running')
    t.equal((await fetch(`${server.url}/health`)).status, 200, 'and healthy')
  })
}
