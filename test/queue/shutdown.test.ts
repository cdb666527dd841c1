// SIGTERM while a queue worker is mid-job: the process waits for the job to end before it exits,
// so a welcome mail being sent is delivered once and its job completes, instead of being cut off
// and sent again by a retry after the restart. It waits up to the shutdown timeout: a job still
// running then is failed, so that it is retried after its retry delay rather than once it expires,
// and the process exits 0.
import type { ChildProcess } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { connect, type AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { openDatabase } from '../../src/db/database.ts'
import { WELCOME_EMAIL_QUEUE } from '../../src/jobs/welcome-email.ts'
import { registerUser } from '../helpers/accounts.ts'
import { build, testConfig, usingPostgres } from '../helpers/build.ts'
import { eventually } from '../helpers/images.ts'
import { createScratchDatabase } from '../helpers/postgres.ts'
import { startServer } from '../helpers/server-process.ts'
import { startSmtpServer } from '../helpers/smtp.ts'

/** Whether the process has ended, by itself or by a signal. */
const exited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null

/** A server on a database of its own, with a welcome mail held mid-send by the mail server. */
async function serverWithMailHeld(t: Test, env: Record<string, string> = {}) {
  const smtp = await startSmtpServer()
  t.teardown(smtp.close)
  smtp.holdReplies = true
  // A database of the test's own: no other test file's workers may take this job.
  const database: Record<string, string> = usingPostgres
    ? { DATABASE_URL: await createScratchDatabase(t, 'shutdown_job') }
    : { DATA_DIR: mkdtempSync(join(tmpdir(), 'blog-shutdown-')) }
  const server = await startServer({
    ...database,
    DATABASE_URL: database.DATABASE_URL ?? '',
    SMTP_URL: smtp.url,
    JWT_SECRET: 'shutdown-test-secret-shutdown-test-secret-01',
    ...env,
  })
  t.teardown(() => server.child.kill('SIGKILL'))
  const email = `shutdown-${Date.now()}@example.com`
  const registered = await fetch(`${server.url}/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: 'a long enough password', name: 'Shutdown' }),
  })
  t.equal(registered.status, 201)
  const userId = ((await registered.json()) as { data: { user: { id: string } } }).data.user.id
  await smtp.mailHeld()
  /** The job as the database has it, once the process is gone. */
  const job = async () => {
    const { prisma, close } = await openDatabase(testConfig(database))
    t.teardown(close)
    return prisma.$queryRaw<{ state: string; retry_count: number; reason: string | null }[]>`
      select state::text, retry_count, output->>'message' as reason
      from pgboss.job where name = ${WELCOME_EMAIL_QUEUE} and id::text = ${userId}`
  }
  return { server, smtp, email, job, userId }
}

t.test('SIGTERM lets the welcome mail being sent finish: delivered once, job completed, exit 0', async (t) => {
  // A shutdown timeout far longer than the test waits: only the job's end lets the process go.
  const { server, smtp, email, job, userId } = await serverWithMailHeld(t, { SHUTDOWN_TIMEOUT_MS: '60000' })
  server.child.kill('SIGTERM')
  // The shutdown reaches the welcome worker, which says it waits for the job it holds; a process
  // that did not wait would exit instead (and never say it), so the wait ends either way.
  const waitingForJob = () =>
    server.logs.some(
      (entry) =>
        entry.msg === 'waiting for the jobs in hand before shutting down' &&
        entry.queue === WELCOME_EMAIL_QUEUE &&
        Array.isArray(entry.jobIds) &&
        entry.jobIds.includes(userId),
    )
  t.ok(
    await eventually(async () => exited(server.child) || waitingForJob(), 30_000, 20),
    'the process exits or says it waits for the job',
  )
  t.ok(
    server.logs.some((entry) => entry.msg === 'shutting down: draining'),
    'the shutdown has begun',
  )
  t.ok(waitingForJob(), 'the shutdown waits for the welcome job mid-send')
  t.notOk(exited(server.child), 'still running while its job is mid-send')
  smtp.release()
  t.equal(await server.exit, 0, 'exits 0 once the job is done')
  t.equal(smtp.mailsTo(email).length, 1, 'the mail was delivered, once')
  t.same(await job(), [{ state: 'completed', retry_count: 0, reason: null }], 'the job completed on its first attempt')
})

t.test(
  'SIGTERM with a mail held past the shutdown timeout: exit 0, the job failed so that it is retried',
  async (t) => {
    const { server, smtp, email, job } = await serverWithMailHeld(t, { SHUTDOWN_TIMEOUT_MS: '2000' })
    server.child.kill('SIGTERM')
    t.equal(await server.exit, 0, 'exits 0 once the timeout has passed')
    t.ok(
      server.logs.some((entry) => /still running at shutdown/.test(String(entry.msg))),
      'says it failed the job still running',
    )
    t.same(
      await job(),
      [{ state: 'retry', retry_count: 0, reason: 'shut down while active' }],
      'failed by the shutdown: the job waits for its retry, not for its expiry',
    )
    smtp.release()
    t.equal(smtp.mailsTo(email).length, 0, 'the mail held was not delivered: the process hung up first')
  },
)

t.test(
  'the jobs’ share of the shutdown timeout counts from the start of the close, requests in flight or not',
  async (t) => {
    const smtp = await startSmtpServer()
    t.teardown(smtp.close)
    smtp.holdReplies = true
    // A database of its own, so that the mail held is this test's.
    const database: Record<string, string> = usingPostgres
      ? { DATABASE_URL: await createScratchDatabase(t, 'shutdown') }
      : {}
    const app = await build(
      t,
      { ...database, SMTP_URL: smtp.url, SHUTDOWN_TIMEOUT_MS: '2000' },
      { jobs: { pollingIntervalSeconds: 0.5 } },
    )
    const user = await registerUser(app, 'shutdown')
    await smtp.mailHeld()
    await app.listen({ host: '127.0.0.1', port: 0 })
    // A request in flight for as long as the test wants: its body never comes.
    const inFlight = connect((app.server.address() as AddressInfo).port, '127.0.0.1')
    t.teardown(() => inFlight.destroy())
    await new Promise((resolve) => inFlight.once('connect', resolve))
    inFlight.write(
      'POST /login HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{',
    )

    let closed = false
    const closing = app.close().then(() => (closed = true))
    const reason = async () =>
      ((await app.services.queue.boss.getJobById(WELCOME_EMAIL_QUEUE, user.id))?.output as { message?: string } | null)
        ?.message
    t.ok(
      await eventually(async () => (await reason()) === 'shut down while active'),
      'the held mail’s job is failed once the timeout has passed',
    )
    t.notOk(closed, 'while the request is still in flight')
    inFlight.destroy()
    await closing
  },
)
