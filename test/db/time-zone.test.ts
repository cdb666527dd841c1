// Times are right whatever time zone the PostgreSQL server or database is set to: the service's
// connections use UTC, in which Prisma's driver adapter writes and reads timestamps. A database
// set to another zone (here +05:45) put every time the service wrote or read off by the offset.
import t, { type Test } from 'tap'
import pg from 'pg'
import { registerUser } from '../helpers/accounts.ts'
import { build } from '../helpers/build.ts'
import { createComment, createPostRecord } from '../helpers/content.ts'
import { createScratchDatabase } from '../helpers/postgres.ts'

/** Allowance for the database server's clock against this process's, far less than the zone's offset. */
const CLOCKS_APART_MS = 60_000

/** A scratch database set to a zone 5:45 ahead of UTC. */
async function databaseInKathmandu(t: Test) {
  const url = await createScratchDatabase(t, 'time_zone')
  const admin = new pg.Client({ connectionString: url })
  await admin.connect()
  await admin.query(`alter database "${new URL(url).pathname.slice(1)}" set timezone to 'Asia/Kathmandu'`)
  await admin.end()
  return url
}

/** A setting as the app's own connections have it. */
const settingOf = async (server: Awaited<ReturnType<typeof build>>, name: string) =>
  (
    await server.services.database.prisma.$queryRawUnsafe<{ value: string }[]>(
      `select current_setting('${name}') as value`,
    )
  )[0]!.value

t.test('a database in another time zone: times written and read are the real ones', async (t) => {
  const url = await databaseInKathmandu(t)
  const server = await build(t, { DATABASE_URL: url })
  const author = await registerUser(server)
  // The times written must fall between these two, however long the requests take (no time is
  // asserted): off by the zone's offset, they would fall hours outside.
  const before = Date.now()
  const post = await createPostRecord(server, { author })
  const comment = await createComment(server, author, post.id)

  const read = await server.inject({ method: 'GET', url: `/posts/${post.id}` })
  const after = Date.now()
  const written = {
    post: read.json().data.createdAt as string,
    comment: (comment as { createdAt?: string }).createdAt!,
  }
  for (const [what, at] of Object.entries(written)) {
    const time = Date.parse(at)
    t.ok(
      time >= before - CLOCKS_APART_MS && time <= after + CLOCKS_APART_MS,
      `${what} createdAt ${at} is between the write's request and its answer`,
    )
  }

  // The row holds the same instant as the API answers, read on a connection of the database's zone.
  const check = new pg.Client({ connectionString: url })
  await check.connect()
  t.teardown(() => check.end())
  const { rows } = await check.query<{ at: Date }>('select created_at as at from posts where id = $1', [post.id])
  t.equal(rows[0]!.at.toISOString(), written.post, 'stored as the instant the API answers')
})

t.test('startup options of the operator’s, in the URL or in PGOPTIONS, are kept beside UTC', async (t) => {
  for (const [where, given] of [
    ['the URL', (url: URL) => url.searchParams.set('options', '-c statement_timeout=4321')],
    ['PGOPTIONS', () => (process.env.PGOPTIONS = '-c statement_timeout=4321')],
  ] as const) {
    const url = new URL(await databaseInKathmandu(t))
    given(url)
    const server = await build(t, { DATABASE_URL: url.href })
    delete process.env.PGOPTIONS
    t.equal(await settingOf(server, 'TimeZone'), 'UTC', `given in ${where}: the time zone is UTC`)
    t.equal(await settingOf(server, 'statement_timeout'), '4321ms', 'and the operator’s option holds')
  }
})
