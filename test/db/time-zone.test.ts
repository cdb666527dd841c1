// Times are right whatever time zone the PostgreSQL server or database is set to: the service's
// connections use UTC, in which Prisma's driver adapter writes and reads timestamps. A database
// set to another zone (here +05:45) put every time the service wrote or read off by the offset.
import t from 'tap'
import pg from 'pg'
import { registerUser } from '../helpers/accounts.ts'
import { build } from '../helpers/build.ts'
import { createComment, createPostRecord } from '../helpers/content.ts'
import { createScratchDatabase } from '../helpers/postgres.ts'

/** Far more than a request takes, far less than the zone's offset. */
const WITHIN_MS = 60_000

t.test('a database in another time zone: times written and read are the real ones', async (t) => {
  const url = await createScratchDatabase(t, 'time_zone')
  const admin = new pg.Client({ connectionString: url })
  await admin.connect()
  await admin.query(`alter database "${new URL(url).pathname.slice(1)}" set timezone to 'Asia/Kathmandu'`)
  await admin.end()
  const server = await build(t, { DATABASE_URL: url })
  const author = await registerUser(server)
  const post = await createPostRecord(server, { author })
  const comment = await createComment(server, author, post.id)

  const read = await server.inject({ method: 'GET', url: `/posts/${post.id}` })
  const written = {
    post: read.json().data.createdAt as string,
    comment: (comment as { createdAt?: string }).createdAt!,
  }
  for (const [what, at] of Object.entries(written))
    t.ok(Math.abs(Date.parse(at) - Date.now()) < WITHIN_MS, `${what} createdAt ${at} is now`)

  // The row holds the same instant as the API answers, read on a connection of the database's zone.
  const check = new pg.Client({ connectionString: url })
  await check.connect()
  t.teardown(() => check.end())
  const { rows } = await check.query<{ at: Date }>('select created_at as at from posts where id = $1', [post.id])
  t.equal(rows[0]!.at.toISOString(), written.post, 'stored as the instant the API answers')
})
