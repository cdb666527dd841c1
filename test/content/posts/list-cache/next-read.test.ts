// "A write is visible to the next read on every instance": lists always read the database, and
// must still behave so with the list cache. Two instances on one PostgreSQL; each round the reader
// serves the page from its cache, the writer edits the post and is answered, and the reader reads
// the page once, at once: it must show the edit, whether or not the writer's NOTIFY has arrived
// (src/db/list-generation.ts). And an instance of the release before list caching, whose messages
// do not say whether lists changed, still empties the new instances' lists.
import pg from 'pg'
import t from 'tap'
import { build, usingPostgres } from '../../../helpers/build.ts'
import { registerUser } from '../../../helpers/accounts.ts'
import { eventually } from '../../../helpers/images.ts'
import { createScratchDatabase } from '../../../helpers/postgres.ts'
import { createPost } from '../../../helpers/posts.ts'

const skip = usingPostgres ? false : 'needs PostgreSQL: instances share a database only there (set DATABASE_URL)'
const ROUNDS = 30

t.test('the next list read on another instance shows a write already answered', { skip }, async (t) => {
  const url = await createScratchDatabase(t, 'list_next_read')
  const writer = await build(t, { DATABASE_URL: url })
  const reader = await build(t, { DATABASE_URL: url })
  const author = await registerUser(writer)
  const post = await createPost(writer, author, { status: 'published', title: 't0' })
  const page = '/posts?limit=1'
  const firstTitle = async () => (await reader.inject({ method: 'GET', url: page })).json().data[0].title as string
  const stale: number[] = []
  for (let round = 1; round <= ROUNDS; round++) {
    // Until the reader serves the page from its cache: the last round's NOTIFY may empty it meanwhile.
    const served = await eventually(async () => {
      await firstTitle()
      const hits = reader.services.listCache.stats().hits
      await firstTitle()
      return reader.services.listCache.stats().hits === hits + 1
    })
    t.ok(served, `round ${round}: the reader serves the page from its cache`)
    const edit = await writer.inject({
      method: 'PATCH',
      url: `/posts/${post.id}`,
      headers: author.auth,
      payload: { title: `t${round}` },
    })
    t.equal(edit.statusCode, 200)
    if ((await firstTitle()) !== `t${round}`) stale.push(round)
  }
  t.same(stale, [], `rounds whose next read through the other instance showed the old page (of ${ROUNDS})`)
})

t.test('a message from an instance of the previous release empties the lists', { skip }, async (t) => {
  const url = await createScratchDatabase(t, 'list_old_release')
  const app = await build(t, { DATABASE_URL: url })
  const author = await registerUser(app)
  await createPost(app, author, { status: 'published' })
  await app.inject({ method: 'GET', url: '/posts' })
  t.equal(app.services.listCache.stats().entries, 1, 'a page is cached')
  // What the previous release sends when a post is published through it: `post:<id>`, no sender.
  const old = new pg.Client({ connectionString: url })
  await old.connect()
  t.teardown(() => old.end())
  await old.query(`select pg_notify('post_cache', 'post:' || gen_random_uuid())`)
  t.ok(await eventually(async () => app.services.listCache.stats().entries === 0, 5_000, 20), 'the page is dropped')
})
