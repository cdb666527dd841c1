// listPosts' cache of public pages in GET /metrics, as the post cache is. On PostgreSQL in a database
// of its own: other test files' writes would empty this instance's list cache and change the counts.
import t from 'tap'
import { build, usingPostgres } from '../helpers/build.ts'
import { registerUser } from '../helpers/accounts.ts'
import { createScratchDatabase } from '../helpers/postgres.ts'
import { createPost } from '../helpers/posts.ts'

t.test("the list cache's hits, misses, evictions and size are in GET /metrics", async (t) => {
  const database: Record<string, string> = usingPostgres
    ? { DATABASE_URL: await createScratchDatabase(t, 'list_cache_metrics') }
    : {}
  // One entry: the second page read pushes out the first.
  const app = await build(t, { ...database, POST_CACHE_MAX_ENTRIES: '1' })
  await createPost(app, await registerUser(app), { status: 'published' })
  for (const url of ['/posts?limit=5', '/posts?limit=5', '/posts?limit=6'])
    t.equal((await app.inject({ method: 'GET', url })).statusCode, 200, url)
  const text = (await app.inject({ method: 'GET', url: '/metrics' })).body
  t.match(text, /^blog_list_cache_hits_total 1$/m)
  t.match(text, /^blog_list_cache_misses_total 2$/m)
  t.match(text, /^blog_list_cache_evictions_total 1$/m)
  t.match(text, /^blog_list_cache_entries 1$/m)
  t.match(text, /^blog_list_cache_bytes [1-9]\d*$/m)
})
