// A public list page of heavy posts is read from the database once, then served from the list
// cache: every page within the list page budget (LIST_PAGE_MAX_BYTES, 1 MiB by default) fits the
// cache, even one larger than the eighth of the cache an entry was otherwise limited to. Counted
// in database page loads (list cache misses: each is one listPosts statement), never in time. On
// PostgreSQL in a database of its own: other files' writes would empty this instance's cache.
import t, { type Test } from 'tap'
import { build, usingPostgres } from '../../../helpers/build.ts'
import { registerUser } from '../../../helpers/accounts.ts'
import { createScratchDatabase } from '../../../helpers/postgres.ts'
import { createPost } from '../../../helpers/posts.ts'

const MIB = 1024 * 1024

const ownDatabase = async (t: Test, env: Record<string, string>) =>
  usingPostgres ? { DATABASE_URL: await createScratchDatabase(t, 'list_budget'), ...env } : env

t.test('heavy pages within the budget are loaded once each, then served from memory', async (t) => {
  // A list cache of 4 MiB (a quarter of the post cache's bytes): an eighth of it is 512 KiB.
  const app = await build(t, await ownDatabase(t, { POST_CACHE_MAX_BYTES: String(16 * MIB) }))
  const author = await registerUser(app)
  // Twelve posts of about 180 KB of JSON each (body and HTML): 2 MB on one page of 100 without the
  // budget; pages of five (about 0.9 MB) within it.
  for (let index = 0; index < 12; index++)
    await createPost(app, author, { status: 'published', title: `Heavy ${index}`, body: 'x'.repeat(90_000) })
  const pages: string[] = []
  let url: string | null = '/posts?limit=100'
  while (url) {
    pages.push(url)
    const response = await app.inject({ method: 'GET', url })
    t.equal(response.statusCode, 200)
    const { meta } = response.json() as { meta: { page: { nextCursor: string | null } } }
    t.ok(response.rawPayload.length <= MIB + 4096, `${url}: ${response.rawPayload.length} bytes`)
    url = meta.page.nextCursor && `/posts?limit=100&cursor=${meta.page.nextCursor}`
  }
  t.equal(pages.length, 3, 'three pages')
  const before = app.services.listCache.stats()
  for (let read = 0; read < 3; read++)
    for (const page of pages) t.equal((await app.inject({ method: 'GET', url: page })).statusCode, 200)
  const after = app.services.listCache.stats()
  t.same(
    { loads: after.misses - before.misses, hits: after.hits - before.hits },
    { loads: 0, hits: 9 },
    'nine reads of three pages: no database page load after the first read of each',
  )
  t.ok(after.bytes > 2 * MIB, `${after.bytes} bytes of pages kept`)
})

t.test('a front page of one post as heavy as a post can be is loaded once, then served from memory', async (t) => {
  const app = await build(t, await ownDatabase(t, {}))
  const author = await registerUser(app)
  // A link title of backslashes and line ends, used ten times: HTML just under HTML_MAX_LENGTH
  // whose every character JSON writes as two bytes, and a body of the same: more than twice the
  // page budget in one post.
  const body = '[a]: /u "' + '\\\n'.repeat(49_940) + '"\n\n' + '[a] '.repeat(10)
  await createPost(app, author, { status: 'published', title: 'Heavy', body })
  const first = await app.inject({ method: 'GET', url: '/posts' })
  t.equal(first.statusCode, 200)
  t.equal(first.json().data.length, 1, 'one post on the page')
  t.ok(first.rawPayload.length > 2 * MIB, `${first.rawPayload.length} bytes`)
  const before = app.services.listCache.stats()
  for (let read = 0; read < 3; read++) t.equal((await app.inject({ method: 'GET', url: '/posts' })).statusCode, 200)
  const after = app.services.listCache.stats()
  t.same(
    { loads: after.misses - before.misses, hits: after.hits - before.hits },
    { loads: 0, hits: 3 },
    'three reads: no database page load after the first',
  )
})
