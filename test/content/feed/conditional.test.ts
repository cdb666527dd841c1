// getFeed's validators: a strong ETag over the bytes and a Last-Modified, `If-None-Match` and
// `If-Modified-Since` answered 304 from the feed cache, If-None-Match winning when both are sent
// (RFC 9110 §13.2.2), and never a 304 for a copy older than a write whose answer came before the
// request, even when the write came in the same second as the copy (HTTP dates count seconds).
// On PostgreSQL in a database of its own: other files' writes would move Last-Modified on.
import t, { type Test } from 'tap'
import { registerUser } from '../../helpers/accounts.ts'
import { build, usingPostgres } from '../../helpers/build.ts'
import { eventually } from '../../helpers/images.ts'
import { createScratchDatabase } from '../../helpers/postgres.ts'
import { createPost } from '../../helpers/posts.ts'

type App = Awaited<ReturnType<typeof build>>

const ownDatabase = async (t: Test): Promise<Record<string, string>> =>
  usingPostgres ? { DATABASE_URL: await createScratchDatabase(t, 'feed_conditional') } : {}

const get = (app: App, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET') =>
  app.inject({ method, url: '/feed.atom', headers })

const HTTP_DATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/
const inADay = new Date(Date.now() + 86_400_000).toUTCString()
const aDayAgo = new Date(Date.now() - 86_400_000).toUTCString()

t.test('ETag, Last-Modified, Cache-Control; 304s from the cache; If-None-Match wins', async (t) => {
  const app = await build(t, await ownDatabase(t))
  const author = await registerUser(app)
  await createPost(app, author, { status: 'published' })
  const first = await get(app)
  const { etag } = first.headers as { etag: string }
  t.match(etag, /^"[\w-]{32}"$/, 'a strong ETag')
  t.match(first.headers['last-modified'], HTTP_DATE, 'Last-Modified, an IMF-fixdate')
  t.equal(first.headers['cache-control'], 'no-cache', 'caches revalidate each time')

  const before = app.services.feedCache.stats()
  const conditional = await get(app, { 'if-none-match': `"other", W/${etag}` })
  t.equal(conditional.statusCode, 304)
  t.equal(conditional.body, '')
  t.same(
    [conditional.headers.etag, conditional.headers['cache-control']],
    [etag, 'no-cache'],
    'with the headers a 200 would have',
  )
  t.match(conditional.headers['last-modified'], HTTP_DATE)
  const after = app.services.feedCache.stats()
  t.same([after.hits - before.hits, after.misses - before.misses], [1, 0], 'from the cache')

  // The change's own date, once it has settled (the next test): a later one would be in the future.
  let lastModified = ''
  const settled = await eventually(async () => {
    lastModified = String((await get(app)).headers['last-modified'])
    return (await get(app, { 'if-modified-since': lastModified })).statusCode === 304
  }, 15_000)
  t.ok(settled, 'If-Modified-Since of the change')
  t.equal((await get(app, { 'if-modified-since': aDayAgo })).statusCode, 200, 'and before it')
  t.equal((await get(app, { 'if-modified-since': inADay })).statusCode, 200, 'a date in the future: invalid, ignored')
  const obsolete = new Date(lastModified)
  const asctime = `${obsolete.toUTCString().slice(0, 3)} ${obsolete.toUTCString().slice(8, 11)} ${String(obsolete.getUTCDate()).padStart(2, ' ')} ${obsolete.toISOString().slice(11, 19)} ${obsolete.getUTCFullYear()}`
  t.equal((await get(app, { 'if-modified-since': asctime })).statusCode, 304, `asctime form: ${asctime}`)

  t.equal(
    (await get(app, { 'if-none-match': '"other"', 'if-modified-since': inADay })).statusCode,
    200,
    'If-None-Match that does not match wins over If-Modified-Since',
  )
  t.equal(
    (await get(app, { 'if-none-match': etag, 'if-modified-since': aDayAgo })).statusCode,
    304,
    'If-None-Match that matches wins too',
  )
  for (const ignored of ['yesterday', '2026-11-24T10:00:00Z', `${inADay}, ${inADay}`, 'Mon, 31 Feb 2026 00:00:00 GMT'])
    t.equal((await get(app, { 'if-modified-since': ignored })).statusCode, 200, `not an HTTP date: ${ignored}`)
  const long = await get(app, { 'if-modified-since': 'x'.repeat(101) })
  t.equal(long.statusCode, 400, 'a header past its bound')
  t.equal(long.json().error.details[0].path, '/headers/if-modified-since')

  const head = await get(app, {}, 'HEAD')
  t.same([head.statusCode, head.body, head.headers.etag], [200, '', etag], 'HEAD: the headers, no body')
})

t.test('a client echoing Last-Modified gets 304 once the last change has settled', async (t) => {
  const app = await build(t, await ownDatabase(t))
  await createPost(app, await registerUser(app), { status: 'published' })
  // A change dated within the last seconds is sent dated earlier (see lastModifiedOf): the echo
  // is answered 200 until the date sent is the change's own.
  const settled = await eventually(async () => {
    const since = String((await get(app)).headers['last-modified'])
    return (await get(app, { 'if-modified-since': since })).statusCode === 304
  }, 15_000)
  t.ok(settled, 'If-Modified-Since: Last-Modified → 304')
})

t.test('the read after a write is never a 304, by ETag or by date, however soon it comes', async (t) => {
  const app = await build(t, await ownDatabase(t))
  const author = await registerUser(app)
  const post = await createPost(app, author, { status: 'published' })
  const stale = { etag: 0, date: 0 }
  const rounds = 15
  for (let round = 0; round < rounds; round++) {
    const copy = await get(app)
    const title = `Round ${round}`
    const edit = await app.inject({
      method: 'PATCH',
      url: `/posts/${post.id}`,
      headers: author.auth,
      payload: { title },
    })
    if (edit.statusCode !== 200) throw new Error(`edit: ${edit.statusCode}`)
    const byEtag = await get(app, { 'if-none-match': String(copy.headers.etag) })
    const byDate = await get(app, { 'if-modified-since': String(copy.headers['last-modified']) })
    if (byEtag.statusCode !== 200 || !byEtag.body.includes(title)) stale.etag++
    if (byDate.statusCode !== 200 || !byDate.body.includes(title)) stale.date++
  }
  t.same(stale, { etag: 0, date: 0 }, `${rounds} rounds of read, edit, conditional read`)
})
