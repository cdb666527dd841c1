// Two instances on one PostgreSQL: a write through one is seen by a read through the other, whose
// cache held the old post, because writers NOTIFY and every instance LISTENs; and when the
// listening connection is killed, the instance empties its cache and listens again, so a change
// nobody was told about (a direct UPDATE sends no NOTIFY) is seen all the same.
import pg from 'pg'
import t from 'tap'
import { build, usingPostgres } from '../../../helpers/build.ts'
import { registerUser, type Account } from '../../../helpers/accounts.ts'
import { eventually } from '../../../helpers/images.ts'
import { createScratchDatabase } from '../../../helpers/postgres.ts'
import { createPost } from '../../../helpers/posts.ts'

const skip = usingPostgres ? false : 'needs PostgreSQL: instances share a database only there (set DATABASE_URL)'

type App = Awaited<ReturnType<typeof build>>

const title = async (app: App, id: string) =>
  (await app.inject({ method: 'GET', url: `/posts/${id}` })).json().data.title as string

const rename = async (app: App, author: Account, id: string, to: string) => {
  const response = await app.inject({
    method: 'PATCH',
    url: `/posts/${id}`,
    headers: author.auth,
    payload: { title: to },
  })
  if (response.statusCode !== 200) throw new Error(`PATCH: ${response.statusCode} ${response.body}`)
}

/**
 * Reads through `reader` until the title shows. The deadline, far below the cache's TTL (300 s),
 * only turns a notification that never comes into a failure: only the notification can show it.
 */
const seen = (reader: App, id: string, expected: string) =>
  eventually(async () => (await title(reader, id)) === expected, 30_000, 20)

/** The listening connections of this test's database, one per instance. */
async function listeners(admin: pg.Client) {
  const { rows } = await admin.query(
    `select pid from pg_stat_activity where datname = current_database() and application_name = 'blog-api-listen'`,
  )
  return rows.map((row) => row.pid as number)
}

t.test(
  'a write through one instance is seen through the other, also after its listener was killed',
  { skip },
  async (t) => {
    const url = await createScratchDatabase(t, 'cache_fleet')
    const admin = new pg.Client({ connectionString: url })
    await admin.connect()
    t.teardown(() => admin.end())
    const writer = await build(t, { DATABASE_URL: url })
    const reader = await build(t, { DATABASE_URL: url })
    // Every notification here gets through: a warning that one did not would be false. (The killed
    // listener's own warning is real, and not this one.)
    const warnings: string[] = []
    writer.log.warn = ((_object: unknown, message: string) => void warnings.push(message)) as typeof writer.log.warn
    t.ok(await eventually(async () => (await listeners(admin)).length === 2), 'both instances listen')

    const author = await registerUser(writer)
    const post = await createPost(writer, author, { status: 'published', title: 'First' })
    t.equal(await title(reader, post.id), 'First')
    const hits = reader.services.postCache.stats().hits
    t.equal(await title(reader, post.id), 'First')
    t.equal(reader.services.postCache.stats().hits, hits + 1, 'the reader serves the post from its cache')

    await rename(writer, author, post.id, 'Second')
    t.ok(await seen(reader, post.id, 'Second'), 'the reader sees the write, whose post it held in its cache')

    // Kill both listening connections, then change the post behind every instance's back: a direct
    // UPDATE sends no NOTIFY, so the reader's cached 'Second' can only go because the reader empties
    // its cache once it listens again (notifications may have been missed while it did not).
    t.equal(await title(reader, post.id), 'Second')
    const killed = await listeners(admin)
    await admin.query('select pg_terminate_backend(pid) from unnest($1::int[]) as pid', [killed])
    await admin.query(`update posts set title = 'Third' where id = $1`, [post.id])
    t.ok(
      await seen(reader, post.id, 'Third'),
      'a change nobody was told about is seen: the cache was emptied on listening again',
    )

    t.ok(
      await eventually(async () => (await listeners(admin)).filter((pid) => !killed.includes(pid)).length === 2),
      'both instances listen again',
    )
    t.equal(await title(reader, post.id), 'Third')
    await rename(writer, author, post.id, 'Fourth')
    t.ok(await seen(reader, post.id, 'Fourth'), 'notifications reach the reader again')
    t.same(
      warnings.filter((message) => message.includes('could not tell')),
      [],
      'the writer warned of no failed notification',
    )
  },
)
