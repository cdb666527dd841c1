// SIGTERM while a queue worker is mid-job: the process waits for the job to end before it exits,
// so a welcome mail being sent is delivered once and its job completes, instead of being cut off
// and sent again by a retry after the restart.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { openDatabase } from '../../src/db/database.ts'
import { WELCOME_EMAIL_QUEUE } from '../../src/jobs/welcome-email.ts'
import { testConfig, usingPostgres } from '../helpers/build.ts'
import { createScratchDatabase } from '../helpers/postgres.ts'
import { startServer } from '../helpers/server-process.ts'
import { startSmtpServer } from '../helpers/smtp.ts'

t.test('SIGTERM lets the welcome mail being sent finish: delivered once, job completed, exit 0', async (t) => {
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
  server.child.kill('SIGTERM')
  // Time for the shutdown to close the listener and reach the queue, which must wait for the job.
  await new Promise((resolve) => setTimeout(resolve, 1500))
  t.equal(server.child.exitCode, null, 'still running while its job is mid-send')
  t.ok(
    server.logs.some((entry) => entry.msg === 'shutting down'),
    'the shutdown has begun',
  )
  smtp.release()
  t.equal(await server.exit, 0, 'exits 0 once the job is done')
  t.equal(smtp.mailsTo(email).length, 1, 'the mail was delivered, once')

  // The job as the database has it now that the process is gone.
  const { prisma, close } = await openDatabase(testConfig(database))
  t.teardown(close)
  const jobs = await prisma.$queryRaw<{ state: string; retry_count: number }[]>`
    select state::text, retry_count from pgboss.job where name = ${WELCOME_EMAIL_QUEUE} and id::text = ${userId}`
  t.same(jobs, [{ state: 'completed', retry_count: 0 }], 'the job completed on its first attempt')
})
