// listPosts' public pages from memory, never stale: every kind of write that changes what a list
// shows is seen by the very next read; drafts never show; 304s come from memory; the cache stays
// within its bytes. Each case first reads the page twice (the second from the cache), so a missed
// invalidation shows as an old page. On PostgreSQL the tests run in a database of their own: other
// test files' writes would empty this instance's list cache and make the hit counts wrong.
import t, { type Test } from 'tap'
import { build, usingPostgres } from '../../../helpers/build.ts'
import { registerAdmin, registerUser } from '../../../helpers/accounts.ts'
import { createCategory, createComment } from '../../../helpers/content.ts'
import { createScratchDatabase } from '../../../helpers/postgres.ts'
import { eventually, solidImage, uploadThumbnail } from '../../../helpers/images.ts'
import { createPost, makeDue } from '../../../helpers/posts.ts'

type App = Awaited<ReturnType<typeof build>>
type Item = {
  id: string
  title: string
  commentCount: number
  thumbnail: unknown
  author: { name: string }
  categories: { id: string; name: string }[]
}

const ownDatabase = async (t: Test, env: Record<string, string> = {}) =>
  usingPostgres ? { DATABASE_URL: await createScratchDatabase(t, 'list_cache'), ...env } : env

const list = async (app: App, url: string) => {
  const response = await app.inject({ method: 'GET', url })
  if (response.statusCode !== 200) throw new Error(`${url}: ${response.statusCode} ${response.body}`)
  return response.json().data as Item[]
}

/** Reads the page twice, the second time from the cache, and returns its posts. */
async function warm(app: App, url: string) {
  await list(app, url)
  const hits = app.services.listCache.stats().hits
  const items = await list(app, url)
  if (app.services.listCache.stats().hits !== hits + 1) throw new Error(`${url} was not served from the cache`)
  return items
}

const ids = (items: Item[]) => items.map((item) => item.id)
const find = (items: Item[], id: string) => items.find((item) => item.id === id)!

t.test('a list read right after each kind of write shows the new state', async (t) => {
  const app = await build(t, await ownDatabase(t), { jobs: { pollingIntervalSeconds: 0.5 } })
  const [author, admin, reader] = [await registerUser(app), await registerAdmin(app), await registerUser(app, 'reader')]
  const front = '/posts?limit=5'

  t.test('a post published, written as a draft, edited, unpublished, published again, deleted', async (t) => {
    await warm(app, front)
    const post = await createPost(app, author, { status: 'published', title: 'New' })
    t.equal((await list(app, front))[0]!.id, post.id, 'a new published post is on the front page at once')
    await warm(app, front)
    const draft = await createPost(app, author, { status: 'draft' })
    t.notOk(ids(await list(app, front)).includes(draft.id), 'a draft is not')
    await warm(app, front)
    await app.inject({ method: 'PATCH', url: `/posts/${post.id}`, headers: author.auth, payload: { title: 'Edited' } })
    t.equal(find(await list(app, front), post.id).title, 'Edited', 'an edit shows')
    await warm(app, front)
    await app.inject({ method: 'PATCH', url: `/posts/${post.id}`, headers: author.auth, payload: { status: 'draft' } })
    t.notOk(ids(await list(app, front)).includes(post.id), 'unpublished: gone')
    await warm(app, front)
    await app.inject({
      method: 'PATCH',
      url: `/posts/${post.id}`,
      headers: author.auth,
      payload: { status: 'published' },
    })
    t.ok(ids(await list(app, front)).includes(post.id), 'published again: back')
    await warm(app, front)
    t.equal((await app.inject({ method: 'DELETE', url: `/posts/${post.id}`, headers: author.auth })).statusCode, 204)
    t.notOk(ids(await list(app, front)).includes(post.id), 'deleted: gone')
  })

  t.test('a post published by the scheduled job', async (t) => {
    const post = await createPost(app, author, {
      status: 'scheduled',
      publishedAt: new Date(Date.now() + 3_600_000).toISOString(),
    })
    t.notOk(ids(await warm(app, front)).includes(post.id), 'not listed while scheduled')
    await makeDue(app, post.id)
    // Well within the cache's TTL: only an invalidation can bring it.
    t.ok(await eventually(async () => ids(await list(app, front)).includes(post.id)), 'listed once the job ran')
  })

  t.test('a thumbnail set, then removed', async (t) => {
    const post = await createPost(app, author, { status: 'published' })
    t.equal(find(await warm(app, front), post.id).thumbnail, null)
    const image = await solidImage(400, 300, 'png')
    const upload = await uploadThumbnail(app, post.id, author.auth, image, { contentType: 'image/png' })
    t.equal(upload.statusCode, 200)
    t.ok(find(await list(app, front), post.id).thumbnail, 'the thumbnail shows')
    await warm(app, front)
    await app.inject({ method: 'DELETE', url: `/posts/${post.id}/thumbnail`, headers: author.auth })
    t.equal(find(await list(app, front), post.id).thumbnail, null, 'and is gone')
  })

  t.test('a comment added, then removed', async (t) => {
    const post = await createPost(app, author, { status: 'published' })
    await warm(app, front)
    const comment = await createComment(app, reader, post.id)
    t.equal(find(await list(app, front), post.id).commentCount, 1)
    await warm(app, front)
    await app.inject({ method: 'DELETE', url: `/comments/${comment.id}`, headers: reader.auth })
    t.equal(find(await list(app, front), post.id).commentCount, 0)
  })

  t.test("the author's display name changed", async (t) => {
    const writer = await registerUser(app, 'writer')
    const post = await createPost(app, writer, { status: 'published' })
    await warm(app, front)
    await app.inject({ method: 'PATCH', url: '/me', headers: writer.auth, payload: { name: 'New Name' } })
    t.equal(find(await list(app, front), post.id).author.name, 'New Name')
  })

  t.test("a category renamed, deleted; a post moved out of a category's list", async (t) => {
    const [category, other] = [await createCategory(app, admin), await createCategory(app, admin)]
    const post = await createPost(app, author, { status: 'published', categoryIds: [category.id] })
    const moved = await createPost(app, author, { status: 'published', categoryIds: [category.id] })
    const byCategory = `/posts?category=${category.slug}`
    t.same(ids(await warm(app, byCategory)), [moved.id, post.id])
    await app.inject({
      method: 'PATCH',
      url: `/posts/${moved.id}`,
      headers: author.auth,
      payload: { categoryIds: [other.id] },
    })
    t.same(ids(await list(app, byCategory)), [post.id], 're-filed: gone from the old category')
    await warm(app, byCategory)
    await app.inject({
      method: 'PATCH',
      url: `/categories/${category.id}`,
      headers: admin.auth,
      payload: { name: 'R' },
    })
    t.same(find(await list(app, byCategory), post.id).categories, [{ id: category.id, name: 'R', slug: category.slug }])
    await warm(app, byCategory)
    await warm(app, front)
    await app.inject({ method: 'DELETE', url: `/categories/${category.id}`, headers: admin.auth })
    t.same(await list(app, byCategory), [], 'deleted: its list is empty')
    t.notOk(
      find(await list(app, front), post.id).categories.some((c) => c.id === category.id),
      'and no post shows it',
    )
  })
})

t.test('drafts and scheduled posts never show in a public list, cached or not', async (t) => {
  const app = await build(t, await ownDatabase(t))
  const author = await registerUser(app)
  const draft = await createPost(app, author, { status: 'draft' })
  const published = await createPost(app, author, { status: 'published' })
  const mine = `/posts?author=${author.id}`
  const asAuthor = await app.inject({ method: 'GET', url: mine, headers: author.auth })
  t.same(ids(asAuthor.json().data), [published.id], 'not even to their author, without status')
  t.same(ids(await warm(app, mine)), [published.id])
  const drafts = await app.inject({
    method: 'GET',
    url: `/posts?status=draft&author=${author.id}`,
    headers: author.auth,
  })
  t.same(ids(drafts.json().data), [draft.id], "the author's drafts list has it")
  t.same(ids(await list(app, mine)), [published.id], 'the public list is still without it')
})

t.test('If-None-Match is answered 304 from the cache, until the page changes', async (t) => {
  const app = await build(t, await ownDatabase(t))
  const author = await registerUser(app)
  const post = await createPost(app, author, { status: 'published' })
  const url = `/posts?author=${author.id}`
  const first = await app.inject({ method: 'GET', url })
  const etag = first.headers.etag as string
  t.match(etag, /^"[\w-]{32}"$/)
  const before = app.services.listCache.stats()
  const conditional = await app.inject({ method: 'GET', url, headers: { 'if-none-match': `W/${etag}` } })
  t.equal(conditional.statusCode, 304)
  t.equal(conditional.headers.etag, etag)
  t.equal(conditional.body, '')
  const after = app.services.listCache.stats()
  t.same([after.hits - before.hits, after.misses - before.misses], [1, 0], 'a hit, no database read')
  t.equal(
    (await app.inject({ method: 'GET', url: `${url}&limit=5`, headers: { 'if-none-match': etag } })).statusCode,
    200,
    'another page: another tag',
  )
  await app.inject({ method: 'PATCH', url: `/posts/${post.id}`, headers: author.auth, payload: { title: 'Changed' } })
  const changed = await app.inject({ method: 'GET', url, headers: { 'if-none-match': etag } })
  t.equal(changed.statusCode, 200, 'changed: the page again')
  t.not(changed.headers.etag, etag)
  const drafts = `/posts?status=draft&author=${author.id}`
  const draftTag = (await app.inject({ method: 'GET', url: drafts, headers: author.auth })).headers.etag as string
  const again = await app.inject({ method: 'GET', url: drafts, headers: { ...author.auth, 'if-none-match': draftTag } })
  t.equal(again.statusCode, 304, 'uncached lists answer 304 too')
})

const KIB = 1024

t.test(
  'the cache keeps within its bytes (a quarter of POST_CACHE_MAX_BYTES), however many pages are asked for',
  async (t) => {
    const app = await build(t, await ownDatabase(t, { POST_CACHE_MAX_BYTES: String(1024 * KIB) }))
    const author = await registerUser(app)
    // Pages of two posts of 5 KB, each sent with its html of 5 KB: about 21 KB each as counted; 256
    // KiB hold about 12 of the 20.
    for (let index = 0; index < 40; index++)
      await createPost(app, author, { status: 'published', body: `${index}`.padEnd(5_000, 'x') })
    let cursor: string | null = null
    let pages = 0
    do {
      const response: Awaited<ReturnType<App['inject']>> = await app.inject({
        method: 'GET',
        url: `/posts?author=${author.id}&limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      })
      cursor = response.json().meta.page.nextCursor
      pages++
    } while (cursor)
    const stats = app.services.listCache.stats()
    t.equal(pages, 20)
    t.ok(stats.bytes <= 256 * KIB, `${stats.bytes} bytes kept, at most ${256 * KIB}`)
    t.ok(stats.entries > 1 && stats.entries < pages, `${stats.entries} of ${pages} pages kept`)
    t.ok(stats.evictions > 0, 'evictions are counted')
    // A page larger than an eighth of the cache is not kept at all: it would push out every other.
    const entries = stats.entries
    await list(app, `/posts?author=${author.id}&limit=20`)
    t.equal(app.services.listCache.stats().entries, entries, 'a page of 20 long posts is not kept')
  },
)

t.test('with POST_CACHE_MAX_ENTRIES=0 the list cache is off too, and lists still work', async (t) => {
  const app = await build(t, await ownDatabase(t, { POST_CACHE_MAX_ENTRIES: '0' }))
  const author = await registerUser(app)
  const post = await createPost(app, author, { status: 'published' })
  t.same(ids(await list(app, `/posts?author=${author.id}`)), [post.id])
  t.same(ids(await list(app, `/posts?author=${author.id}`)), [post.id])
  t.same([app.services.listCache.stats().hits, app.services.listCache.stats().entries], [0, 0])
})
