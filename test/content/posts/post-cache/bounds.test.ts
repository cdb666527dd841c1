// The GET /posts/{id} cache is bounded by bytes as well as entries, and its TTL is a safety net
// that expires an entry nobody invalidated (compared between instances, never timed).
import t from 'tap'
import { build, usingPostgres } from '../../../helpers/build.ts'
import { registerUser } from '../../../helpers/accounts.ts'
import { eventually } from '../../../helpers/images.ts'
import { heardEverythingSentBefore } from '../../../helpers/notifications.ts'
import { createPost } from '../../../helpers/posts.ts'

const MIB = 1024 * 1024

t.test('large posts are evicted to stay under POST_CACHE_MAX_BYTES, however many entries are allowed', async (t) => {
  const app = await build(t, { POST_CACHE_MAX_BYTES: String(MIB), POST_CACHE_MAX_ENTRIES: '1000' })
  const author = await registerUser(app)
  const posts = []
  // Each post's body is the longest the spec allows: about 200 KB in the cache, so ~5 fit in 1 MiB.
  for (let index = 0; index < 8; index++)
    posts.push(await createPost(app, author, { status: 'published', body: `${index}`.padEnd(100_000, 'x') }))
  for (const post of posts) t.equal((await app.inject({ method: 'GET', url: `/posts/${post.id}` })).statusCode, 200)
  const stats = app.services.postCache.stats()
  t.ok(stats.bytes <= MIB, `${stats.bytes} bytes cached, at most ${MIB}`)
  t.ok(stats.entries < posts.length, `${stats.entries} of ${posts.length} posts kept`)
  t.ok(stats.evictions > 0, 'evictions are counted')
  const newest = posts.at(-1)!
  const hits = stats.hits
  t.equal((await app.inject({ method: 'GET', url: `/posts/${newest.id}` })).json().data.body.length, 100_000)
  t.equal(app.services.postCache.stats().hits, hits + 1, 'the most recent post is still served from memory')
})

t.test('an entry expires after POST_CACHE_TTL_SECONDS, and only then', async (t) => {
  // Two instances, read in turn: the one with the hour-long TTL is read first and again after the
  // other's entry expired, so it holds its entry longer than the other did. No time is measured:
  // only which of the two reads again from the database.
  const instance = async (ttlSeconds: string) => {
    const app = await build(t, { POST_CACHE_TTL_SECONDS: ttlSeconds })
    // On PostgreSQL the instance's listener empties its cache when it connects: once before the reads.
    if (usingPostgres && !(await heardEverythingSentBefore(app))) throw new Error('the instance does not listen')
    const post = await createPost(app, await registerUser(app), { status: 'published' })
    const read = async () => {
      await app.inject({ method: 'GET', url: `/posts/${post.id}` })
      return app.services.postCache.stats().misses
    }
    return { read, misses: await read() }
  }
  const hour = await instance('3600')
  const second = await instance('1')
  t.ok(
    await eventually(async () => (await second.read()) > second.misses),
    'with a TTL of 1 s: read again from the database',
  )
  t.equal(await hour.read(), hour.misses, 'with a TTL of an hour, an entry held longer: still from memory')
})
