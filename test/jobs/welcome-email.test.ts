// The welcome email end to end: a real SMTP server on loopback receives exactly one mail per new
// user, also when it refused the first attempt, and however often the job was enqueued.
import { randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import type PgBoss from 'pg-boss'
import { build, usingPostgres } from '../helpers/build.ts'
import { createScratchDatabase } from '../helpers/postgres.ts'
import { startSmtpServer } from '../helpers/smtp.ts'
import { enqueueWelcomeEmail, WELCOME_EMAIL_QUEUE } from '../../src/jobs/welcome-email.ts'

/** Waits until pg-boss has completed the user's job: from then on no further send can happen. */
async function completedJob(boss: PgBoss, userId: string) {
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; await sleep(100)) {
    const job = await boss.getJobById(WELCOME_EMAIL_QUEUE, userId)
    if (job?.state === 'completed') return job
  }
  throw new Error(`the welcome email job of ${userId} did not complete within 30 s`)
}

const newUser = (label: string) => {
  const userId = randomUUID()
  return { userId, email: `${label}-${userId}@example.com`, name: `${label} ${userId.slice(0, 8)}` }
}

const smtp = await startSmtpServer()
t.teardown(smtp.close)
// A database of its own on PostgreSQL: every app's worker polls the same pg-boss tables, so an app
// of another test file (with its own mailer) could take this file's jobs. PGlite is private anyway.
// Teardowns run last-in, first-out: the app stops (and its jobs), then its database, then the SMTP server.
const env: Record<string, string> = usingPostgres
  ? { DATABASE_URL: await createScratchDatabase(t, 'welcome_email') }
  : {}
const app = await build(
  t,
  { ...env, SMTP_URL: smtp.url },
  { jobs: { pollingIntervalSeconds: 0.5, retryDelaySeconds: 1 } },
)
const { boss } = app.services.queue

t.test('an enqueued welcome email arrives once, addressed to the user, without the name they chose', async (t) => {
  const user = newUser('direct')
  await enqueueWelcomeEmail(boss, user)
  await enqueueWelcomeEmail(boss, user)
  await completedJob(boss, user.userId)
  const mails = smtp.mailsTo(user.email)
  t.equal(mails.length, 1, 'one mail although enqueued twice')
  t.match(mails[0]!.raw, /^Subject: Welcome to the blog\r?$/m)
  t.match(mails[0]!.raw, new RegExp(`^To: ${user.email}\\r?$`, 'm'))
  t.match(mails[0]!.raw, /^Hello,\r?$/m)
  t.notMatch(mails[0]!.raw, user.name, 'the display name, chosen by whoever registered, is not in it')
  t.match(mails[0]!.raw, new RegExp(`^Message-ID: <${user.userId}@blog\\.localhost>\\r?$`, 'mi'))
})

t.test('a first attempt the server refuses (451) is retried and delivered once', async (t) => {
  const user = newUser('refused')
  smtp.refuseFirst.add(user.email)
  await enqueueWelcomeEmail(boss, user)
  const job = await completedJob(boss, user.userId)
  t.ok(smtp.refused.has(user.email), 'the server refused the first attempt')
  t.ok(job.retryCount >= 1, 'pg-boss retried the job')
  t.equal(smtp.mailsTo(user.email).length, 1)
})

t.test('enqueued inside a transaction, the job exists only if the transaction commits', async (t) => {
  const { prisma } = app.services.database
  // The executor the registration transaction hands to pg-boss (see src/auth/sessions/sign-in-store.ts).
  const enqueueIn = (user: ReturnType<typeof newUser>, thenFail: boolean) =>
    prisma.$transaction(async (tx) => {
      await enqueueWelcomeEmail(boss, user, {
        executeSql: async (text, values = []) => ({ rows: await tx.$queryRawUnsafe(text, ...values) }),
      })
      if (thenFail) throw new Error('registration failed after enqueuing')
    })
  const rolledBack = newUser('rolledback')
  await t.rejects(enqueueIn(rolledBack, true))
  t.equal(await boss.getJobById(WELCOME_EMAIL_QUEUE, rolledBack.userId), null, 'no job without the user')
  const committed = newUser('committed')
  await enqueueIn(committed, false)
  await completedJob(boss, committed.userId)
  t.equal(smtp.mailsTo(committed.email).length, 1)
  t.equal(smtp.mailsTo(rolledBack.email).length, 0)
})

t.test('each user registered over HTTP gets exactly one welcome email', async (t) => {
  const register = (email: string, name: string) =>
    app.inject({ method: 'POST', url: '/register', payload: { email, password: 'a long enough password', name } })
  const plain = newUser('http')
  const refusedFirst = newUser('http-refused')
  smtp.refuseFirst.add(refusedFirst.email)
  const ids = new Map<string, string>()
  for (const user of [plain, refusedFirst]) {
    const response = await register(user.email, user.name)
    t.equal(response.statusCode, 201, 'registration does not wait for, nor fail with, the mail server')
    const id: string = response.json().data.user.id
    // Enqueued in the registration's transaction: the job is there as soon as the answer is.
    if (!t.ok(await boss.getJobById(WELCOME_EMAIL_QUEUE, id), 'the job was enqueued with the user, under its id'))
      return
    ids.set(user.email, id)
  }
  const again = await register(plain.email.toUpperCase(), 'Someone else')
  t.equal(again.statusCode, 409, 'a second registration of the same email enqueues nothing')
  for (const user of [plain, refusedFirst]) {
    await completedJob(boss, ids.get(user.email)!)
    const mails = smtp.mailsTo(user.email)
    t.equal(mails.length, 1, `one mail for ${user.email}`)
    t.match(mails[0]?.raw, /^Hello,\r?$/m)
  }
  t.ok(smtp.refused.has(refusedFirst.email), 'the server refused the first attempt')
})
