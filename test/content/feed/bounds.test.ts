// What a feed costs is bounded whatever the posts hold: every field filled to its limit with the
// character that escapes longest still makes a document within FEED_MAX_BYTES (the contract's
// 512 KiB), bodies past 64 KiB escaped carry no content, and the contents together stay within
// 256 KiB, given to the newest posts first. The feed cache keeps within its bytes. On PostgreSQL
// in a database of its own: the feed must hold these posts only.
import t, { type Test } from 'tap'
import {
  ENTRY_CONTENT_MAX_BYTES,
  FEED_CONTENT_MAX_BYTES,
  FEED_ENTRIES,
  FEED_MAX_BYTES,
} from '../../../src/content/feed/atom.ts'
import { loadSpec } from '../../../src/spec.ts'
import { registerAdmin, registerUser } from '../../helpers/accounts.ts'
import { checkAtom, childrenOf, parseXml, textOf } from '../../helpers/atom.ts'
import { build, usingPostgres } from '../../helpers/build.ts'
import { createCategory } from '../../helpers/content.ts'
import { createScratchDatabase } from '../../helpers/postgres.ts'
import { createPost } from '../../helpers/posts.ts'

const ownDatabase = async (t: Test, env: Record<string, string> = {}) =>
  usingPostgres ? { DATABASE_URL: await createScratchDatabase(t, 'feed_bounds'), ...env } : env

const KIB = 1024
/** `&` escapes to five bytes in text (`&amp;`), `"` to six in an attribute (`&quot;`): the longest. */
const AMPERSANDS = (count: number) => '&'.repeat(count)

t.test('a feed of posts at every limit stays within its bytes; contents within their budgets', async (t) => {
  t.equal(
    (loadSpec().components.schemas.AtomFeed as { maxLength: number }).maxLength,
    FEED_MAX_BYTES,
    'the bound the contract gives',
  )
  const app = await build(t, await ownDatabase(t))
  const admin = await registerAdmin(app)
  const author = await registerUser(app)
  await app.inject({ method: 'PATCH', url: '/me', headers: author.auth, payload: { name: AMPERSANDS(100) } })
  const categories: { id: string }[] = []
  for (let index = 0; index < 10; index++) {
    const slug = `${'s'.repeat(57)}-${String(index).padStart(2, '0')}`
    categories.push(await createCategory(app, admin, { name: `${'"'.repeat(58)}${index}`, slug }))
  }
  // Rendered (`&amp;` in HTML, `&amp;amp;` once escaped as content: nine bytes each), just within
  // the per-entry limit: four fit in the budget, the rest do not.
  const fittingCount = Math.floor((ENTRY_CONTENT_MAX_BYTES - 60) / 9)
  const fitting = AMPERSANDS(fittingCount)
  const post = (body: string) =>
    createPost(app, author, {
      status: 'published',
      title: AMPERSANDS(200),
      excerpt: AMPERSANDS(500),
      body,
      categoryIds: categories.map((category) => category.id),
    })
  for (let index = 0; index < FEED_ENTRIES - 1; index++) await post(fitting)
  // The newest: past the per-entry limit (100 000 characters, 500 000 bytes escaped).
  await post(AMPERSANDS(100_000))

  const response = await app.inject({ method: 'GET', url: '/feed.atom' })
  const feed = parseXml(response.rawPayload)
  checkAtom(t, feed)
  const size = response.rawPayload.length
  t.ok(size <= FEED_MAX_BYTES, `${size} bytes, at most ${FEED_MAX_BYTES}`)
  t.ok(size > 0.75 * FEED_MAX_BYTES, 'near it: the bound is not loose')
  const entries = childrenOf(feed, 'entry')
  t.equal(entries.length, FEED_ENTRIES)
  const withContent = entries.map((entry) => childrenOf(entry, 'content').length === 1)
  const fits = Math.floor(FEED_CONTENT_MAX_BYTES / (ENTRY_CONTENT_MAX_BYTES - 10))
  t.same(
    withContent,
    [false, ...Array<boolean>(fits).fill(true), ...Array<boolean>(FEED_ENTRIES - 1 - fits).fill(false)],
    `the body over ${ENTRY_CONTENT_MAX_BYTES} bytes has no content; the next ${fits} fill the budget`,
  )
  t.equal(textOf(entries[1]!, 'content'), `<p>${'&amp;'.repeat(fittingCount)}</p>\n`, 'a content given is whole')
  for (const entry of entries) t.equal(textOf(entry, 'summary'), AMPERSANDS(500), 'every entry keeps its summary')
})

t.test('the feed cache keeps within its bytes, however many category feeds are read', async (t) => {
  // POST_CACHE_MAX_BYTES of 1 MiB: 128 KiB for feeds, none over 16 KiB kept.
  const app = await build(t, await ownDatabase(t, { POST_CACHE_MAX_BYTES: String(1024 * KIB) }))
  const [admin, author] = [await registerAdmin(app), await registerUser(app)]
  const slugs = []
  for (let index = 0; index < 24; index++) {
    const category = await createCategory(app, admin)
    slugs.push(category.slug)
    // About 10 KB a feed.
    await createPost(app, author, { status: 'published', body: 'x'.repeat(9_000), categoryIds: [category.id] })
  }
  for (const slug of slugs) await app.inject({ method: 'GET', url: `/feed.atom?category=${slug}` })
  const stats = app.services.feedCache.stats()
  t.ok(stats.bytes <= 128 * KIB, `${stats.bytes} bytes kept, at most ${128 * KIB}`)
  t.ok(stats.entries > 1 && stats.entries < slugs.length, `${stats.entries} of ${slugs.length} feeds kept`)
  t.ok(stats.evictions > 0, 'evictions are counted')
  await createPost(app, author, { status: 'published', body: 'y'.repeat(20_000) })
  const before = app.services.feedCache.stats()
  for (let read = 0; read < 2; read++) await app.inject({ method: 'GET', url: '/feed.atom' })
  const after = app.services.feedCache.stats()
  t.same([after.hits - before.hits, after.misses - before.misses], [0, 2], 'a feed over 16 KiB is not kept')
})
