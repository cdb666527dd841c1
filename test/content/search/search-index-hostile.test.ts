// Hostile post bodies against PostgreSQL's text-search parser, over HTTP: every write indexes its
// post (to_tsvector), and on these bodies the parser read ahead from every token to the end of the
// text — seconds to minutes of database time per request (503 once the client stopped waiting,
// the server going on for 18 s more), and "stack depth limit exceeded" (500) for nested e-mail
// addresses. Each is now accepted and its post found by a word in it; that the parser's work is
// linear is shown by the bounds on the text it gets (test/content/search/search-text.test.ts), not timed
// here. Figures measured are in the commit message.
import pg from 'pg'
import t from 'tap'
import { build, usingPostgres } from '../../helpers/build.ts'
import { registerUser } from '../../helpers/accounts.ts'
import { createPost } from '../../helpers/posts.ts'
import { HOSTILE_LENGTH, HOSTILE_SEARCH_BODIES } from '../../helpers/hostile-text.ts'

/** A word of letters no other post has: a search for it finds the one post that holds it. */
const uniqueWord = () =>
  `w${Array.from({ length: 12 }, () => String.fromCharCode(97 + Math.floor(Math.random() * 26))).join('')}`

const found = async (app: Awaited<ReturnType<typeof build>>, word: string) =>
  (await app.inject({ method: 'GET', url: `/posts?q=${word}` })).json().data.map((post: { id: string }) => post.id)

t.test('every hostile body is accepted, and its post is found by a word in it', async (t) => {
  const app = await build(t)
  const author = await registerUser(app)
  for (const [name, hostile] of Object.entries(HOSTILE_SEARCH_BODIES)) {
    const word = uniqueWord()
    const body = `${word} ${hostile}`.slice(0, HOSTILE_LENGTH)
    const response = await app.inject({
      method: 'POST',
      url: '/posts',
      headers: author.auth,
      payload: { title: name, body, status: 'published' },
    })
    t.equal(response.statusCode, 201, `${name}: created`)
    if (response.statusCode === 201)
      t.same(await found(app, word), [response.json().data.id], `${name}: found by a word in it`)
  }
})

t.test('an edit to a hostile body is indexed too', async (t) => {
  const app = await build(t)
  const author = await registerUser(app)
  const post = await createPost(app, author, { status: 'published' })
  const word = uniqueWord()
  const body = `${word} ${HOSTILE_SEARCH_BODIES['nested e-mail addresses']}`.slice(0, HOSTILE_LENGTH)
  const edited = await app.inject({
    method: 'PATCH',
    url: `/posts/${post.id}`,
    headers: author.auth,
    payload: { body },
  })
  t.equal(edited.statusCode, 200)
  t.same(await found(app, word), [post.id])
  const titled = await app.inject({
    method: 'PATCH',
    url: `/posts/${post.id}`,
    headers: author.auth,
    payload: { title: `Now ${uniqueWord()}` },
  })
  t.equal(titled.statusCode, 200, 'a new title alone re-indexes it with the body it has')
  t.same(await found(app, word), [post.id], 'still found by the word in its body')
})

t.test(
  "PostgreSQL itself ends a post write's statement that outlasts DATABASE_TIMEOUT_MS: 503, and nothing left running",
  {
    skip: !usingPostgres && 'PGlite runs one statement at a time in this process: nothing can outlast its client there',
  },
  async (t) => {
    // The server is to end it a little before the client gives up (at 1 s): a statement the
    // client abandoned went on running on the server, holding its connection and locks.
    const app = await build(t, { DATABASE_TIMEOUT_MS: '1000' })
    const author = await registerUser(app)
    const post = await createPost(app, author)
    // Another session holds the post's row: the edit's `select … for update` waits for it.
    const holder = new pg.Client({ connectionString: process.env.DATABASE_URL })
    await holder.connect()
    t.teardown(() => holder.end())
    await holder.query('begin')
    await holder.query('select id from posts where id = $1 for update', [post.id])
    const holderPid = (await holder.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid

    const blocked = await app.inject({
      method: 'PATCH',
      url: `/posts/${post.id}`,
      headers: author.auth,
      payload: { title: 'Edited' },
    })
    t.equal(blocked.statusCode, 503)
    t.equal(blocked.json().error.code, 'SERVICE_UNAVAILABLE')
    const waiting = await holder.query<{ n: number }>(
      'select count(*)::int as n from pg_stat_activity where $1 = any(pg_blocking_pids(pid))',
      [holderPid],
    )
    t.equal(waiting.rows[0]!.n, 0, 'no statement still waits for the lock once the client is answered')

    await holder.query('rollback')
    const edited = await app.inject({
      method: 'PATCH',
      url: `/posts/${post.id}`,
      headers: author.auth,
      payload: { title: 'Edited' },
    })
    t.equal(edited.statusCode, 200, 'the next write goes through')
  },
)
