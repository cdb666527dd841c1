// The account-mail worker's throughput, counted rather than timed: jobs queued together are taken
// several per fetch, so N of them need a few fetches, not N. Jobs one fetch took share their
// started_on (one UPDATE, one now()), so the number of distinct started_on values is the number of
// fetches that did the work. Freed slots are filled at once, not a polling interval later: with an
// interval of an hour, the jobs can all complete within the test only if every fetch after the
// first came from slots freed. The jobs are password resets for unknown emails: the free jobs
// anyone can queue.
import { randomUUID } from 'node:crypto'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { build, usingPostgres } from '../helpers/build.ts'
import { uniqueEmail } from '../helpers/accounts.ts'
import { eventually } from '../helpers/images.ts'
import { createScratchDatabase } from '../helpers/postgres.ts'
import { startSmtpServer } from '../helpers/smtp.ts'
import { newLinkRequest } from '../../src/auth/account-email/account-email.ts'
import { ACCOUNT_EMAIL_CONCURRENCY, ACCOUNT_EMAIL_QUEUE } from '../../src/jobs/account-email.ts'

const smtp = await startSmtpServer()
t.teardown(smtp.close)
// A database that outlives an instance: the jobs are queued by one, then taken by the next.
const database: Record<string, string> = usingPostgres
  ? { DATABASE_URL: await createScratchDatabase(t, 'account_email_jobs') }
  : { DATA_DIR: mkdtempSync(join(tmpdir(), 'account-email-jobs-')) }
const env = { ...database, SMTP_URL: smtp.url }
const HOUR = { jobs: { pollingIntervalSeconds: 3600 } }

t.test('N queued account mails are handled in a few fetches, without waiting for the polling interval', async (t) => {
  const count = 3 * ACCOUNT_EMAIL_CONCURRENCY
  const ids = Array.from({ length: count }, () => randomUUID())
  // Queued through an instance whose worker has already looked (at its start) and next looks in an
  // hour, then closed: the instance started next finds them all at its first fetch.
  const queuing = await build(t, env, HOUR)
  await queuing.services.queue.boss.insert(
    ids.map((id) => ({
      id,
      name: ACCOUNT_EMAIL_QUEUE,
      data: { kind: 'password-reset', email: uniqueEmail('nobody'), ...newLinkRequest() },
    })),
  )
  await queuing.close()
  const app = await build(t, env, HOUR)
  const completed = async () => {
    const [row] = await app.services.database.prisma.$queryRawUnsafe<{ done: number; fetches: number }[]>(
      `select count(*) filter (where state = 'completed')::int as done, count(distinct started_on)::int as fetches
       from pgboss.job where name = $1 and id = any($2::uuid[])`,
      ACCOUNT_EMAIL_QUEUE,
      ids,
    )
    return row!
  }
  // The deadline is far below the hour a fetch waits for when no slot frees it.
  t.ok(await eventually(async () => (await completed()).done === count, 60_000), 'every job completed')
  const { fetches } = await completed()
  t.ok(fetches > 1, `freed slots were filled at once: ${fetches} fetches, all but the first from slots freed`)
  // Slots are refilled when half are free, so a fetch takes about half the concurrency; a quarter
  // leaves room for fetches that find a few slots freed while they ran, and is far from one per job.
  t.ok(fetches <= count / (ACCOUNT_EMAIL_CONCURRENCY / 4), `${fetches} fetches for ${count} jobs`)
})
