// The account-mail worker's throughput, counted rather than timed: jobs queued together are taken
// several per fetch, so N of them need a few fetches, not N. Jobs one fetch took share their
// started_on (one UPDATE, one now()), so the number of distinct started_on values is the number of
// fetches that did the work. Freed slots are filled at once, not a polling interval later: with a
// long interval, every job starts within one interval of the first. The jobs are password resets
// for unknown emails: the free jobs anyone can queue.
import { randomUUID } from 'node:crypto'
import t from 'tap'
import { build, usingPostgres } from '../helpers/build.ts'
import { uniqueEmail } from '../helpers/accounts.ts'
import { mailJobsSettled } from '../helpers/account-mail.ts'
import { eventually } from '../helpers/images.ts'
import { createScratchDatabase } from '../helpers/postgres.ts'
import { startSmtpServer } from '../helpers/smtp.ts'
import { newLinkRequest } from '../../src/auth/account-email.ts'
import { ACCOUNT_EMAIL_CONCURRENCY, ACCOUNT_EMAIL_QUEUE } from '../../src/jobs/account-email.ts'

const smtp = await startSmtpServer()
t.teardown(smtp.close)
const database: Record<string, string> = usingPostgres
  ? { DATABASE_URL: await createScratchDatabase(t, 'account_email_jobs') }
  : {}
const POLLING_INTERVAL_SECONDS = 10
const app = await build(
  t,
  { ...database, SMTP_URL: smtp.url },
  { jobs: { pollingIntervalSeconds: POLLING_INTERVAL_SECONDS } },
)

t.test('N queued account mails are handled in a few fetches, without waiting for the polling interval', async (t) => {
  const { boss } = app.services.queue
  const count = 3 * ACCOUNT_EMAIL_CONCURRENCY
  const ids = Array.from({ length: count }, () => randomUUID())
  // Inserted in one statement, so the worker finds them all queued at its next fetch.
  await boss.insert(
    ids.map((id) => ({
      id,
      name: ACCOUNT_EMAIL_QUEUE,
      data: { kind: 'password-reset', email: uniqueEmail('nobody'), ...newLinkRequest() },
    })),
  )
  await mailJobsSettled(app)
  const completed = async () => {
    const [row] = await app.services.database.prisma.$queryRawUnsafe<
      { done: number; fetches: number; spreadSeconds: number }[]
    >(
      `select count(*) filter (where state = 'completed')::int as done, count(distinct started_on)::int as fetches,
         extract(epoch from max(started_on) - min(started_on))::float8 as "spreadSeconds"
       from pgboss.job where name = $1 and id = any($2::uuid[])`,
      ACCOUNT_EMAIL_QUEUE,
      ids,
    )
    return row!
  }
  t.ok(await eventually(async () => (await completed()).done === count, 60_000), 'every job completed')
  const { fetches, spreadSeconds } = await completed()
  t.comment(`${count} jobs taken by ${fetches} fetches within ${spreadSeconds} s`)
  t.ok(spreadSeconds < POLLING_INTERVAL_SECONDS, 'freed slots were filled at once')
  // Slots are refilled when half are free, so a fetch takes about half the concurrency; a quarter
  // leaves room for fetches that find a few slots freed while they ran, and is far from one per job.
  t.ok(fetches <= count / (ACCOUNT_EMAIL_CONCURRENCY / 4), `${fetches} fetches for ${count} jobs`)
})
