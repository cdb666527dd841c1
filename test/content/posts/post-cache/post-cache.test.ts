// GET /posts/{id} from memory, never stale: every kind of write that changes what it returns is
// seen by the very next read, drafts stay hidden even when cached, and 304s come from memory.
// Each case first reads the post (filling the cache), so a missed invalidation shows as old data.
import t from 'tap'
import { build } from '../../../helpers/build.ts'
import { registerAdmin, registerUser, type Account } from '../../../helpers/accounts.ts'
import { createCategory, createComment } from '../../../helpers/content.ts'
import { eventually, solidImage, uploadThumbnail } from '../../../helpers/images.ts'
import { createPost, makeDue } from '../../../helpers/posts.ts'

type App = Awaited<ReturnType<typeof build>>

const read = (app: App, id: string, account?: Account) =>
  app.inject({ method: 'GET', url: `/posts/${id}`, headers: account ? account.auth : {} })

/** Reads the post twice (the second from the cache) and returns its data. */
async function warm(app: App, id: string, account?: Account) {
  await read(app, id, account)
  const hitsBefore = app.services.postCache.stats().hits
  const response = await read(app, id, account)
  if (response.statusCode !== 200 || app.services.postCache.stats().hits !== hitsBefore + 1)
    throw new Error('the post was not served from the cache')
  return response.json().data
}

t.test('a read right after each kind of write shows the new state', async (t) => {
  const app = await build(t, {}, { jobs: { pollingIntervalSeconds: 0.5 } })
  const author = await registerUser(app)
  const admin = await registerAdmin(app)
  const reader = await registerUser(app, 'reader')

  t.test('the post edited', async (t) => {
    const post = await createPost(app, author, { status: 'published' })
    await warm(app, post.id)
    await app.inject({ method: 'PATCH', url: `/posts/${post.id}`, headers: author.auth, payload: { title: 'Edited' } })
    t.equal((await read(app, post.id)).json().data.title, 'Edited')
  })

  t.test('the post published by its author, and unpublished again', async (t) => {
    const post = await createPost(app, author, { status: 'draft' })
    await warm(app, post.id, author)
    await app.inject({
      method: 'PATCH',
      url: `/posts/${post.id}`,
      headers: author.auth,
      payload: { status: 'published' },
    })
    t.equal((await read(app, post.id)).statusCode, 200, 'anonymous readers see it at once')
    await warm(app, post.id)
    await app.inject({ method: 'PATCH', url: `/posts/${post.id}`, headers: author.auth, payload: { status: 'draft' } })
    t.equal((await read(app, post.id)).statusCode, 404, 'and stop seeing it at once')
  })

  t.test('the post published by the scheduled job', async (t) => {
    const post = await createPost(app, author, {
      status: 'scheduled',
      publishedAt: new Date(Date.now() + 3_600_000).toISOString(),
    })
    t.equal((await warm(app, post.id, author)).status, 'scheduled')
    await makeDue(app, post.id)
    const { prisma } = app.services.database
    t.ok(
      await eventually(
        async () => (await prisma.post.findUniqueOrThrow({ where: { id: post.id } })).status === 'published',
      ),
      'the job ran',
    )
    t.equal((await read(app, post.id, author)).json().data.status, 'published')
    t.equal((await read(app, post.id)).statusCode, 200, 'visible to anonymous readers')
  })

  t.test('the post deleted', async (t) => {
    const post = await createPost(app, author, { status: 'published' })
    await warm(app, post.id)
    t.equal((await app.inject({ method: 'DELETE', url: `/posts/${post.id}`, headers: author.auth })).statusCode, 204)
    t.equal((await read(app, post.id)).statusCode, 404)
  })

  t.test('its thumbnail set, then removed', async (t) => {
    const post = await createPost(app, author, { status: 'published' })
    t.equal((await warm(app, post.id)).thumbnail, null)
    t.equal(
      (
        await uploadThumbnail(app, post.id, author.auth, await solidImage(400, 300, 'png'), {
          filename: 'a.png',
          contentType: 'image/png',
        })
      ).statusCode,
      200,
    )
    t.ok((await read(app, post.id)).json().data.thumbnail, 'the thumbnail shows')
    await warm(app, post.id)
    t.equal(
      (await app.inject({ method: 'DELETE', url: `/posts/${post.id}/thumbnail`, headers: author.auth })).statusCode,
      204,
    )
    t.equal((await read(app, post.id)).json().data.thumbnail, null, 'and is gone')
  })

  t.test('a category of it renamed, then deleted', async (t) => {
    const category = await createCategory(app, admin)
    const post = await createPost(app, author, { status: 'published', categoryIds: [category.id] })
    await warm(app, post.id)
    await app.inject({
      method: 'PATCH',
      url: `/categories/${category.id}`,
      headers: admin.auth,
      payload: { name: 'Renamed' },
    })
    t.same(
      (await read(app, post.id)).json().data.categories.map((c: { name: string }) => c.name),
      ['Renamed'],
    )
    await warm(app, post.id)
    t.equal(
      (await app.inject({ method: 'DELETE', url: `/categories/${category.id}`, headers: admin.auth })).statusCode,
      204,
    )
    const categories = (await read(app, post.id)).json().data.categories as { id: string }[]
    t.notOk(
      categories.some((c) => c.id === category.id),
      'the deleted category is gone from the post',
    )
  })

  t.test("its author's display name changed", async (t) => {
    const writer = await registerUser(app, 'writer')
    const post = await createPost(app, writer, { status: 'published' })
    await warm(app, post.id)
    t.equal(
      (await app.inject({ method: 'PATCH', url: '/me', headers: writer.auth, payload: { name: 'New Name' } }))
        .statusCode,
      200,
    )
    t.equal((await read(app, post.id)).json().data.author.name, 'New Name')
  })

  t.test('a comment added, then removed', async (t) => {
    const post = await createPost(app, author, { status: 'published' })
    t.equal((await warm(app, post.id)).commentCount, 0)
    const comment = await createComment(app, reader, post.id)
    t.equal((await read(app, post.id)).json().data.commentCount, 1)
    await warm(app, post.id)
    t.equal(
      (await app.inject({ method: 'DELETE', url: `/comments/${comment.id}`, headers: reader.auth })).statusCode,
      204,
    )
    t.equal((await read(app, post.id)).json().data.commentCount, 0)
  })
})

t.test('a cached draft is 404 to anonymous and to other users, 200 to its author and admins', async (t) => {
  const app = await build(t)
  const author = await registerUser(app)
  const other = await registerUser(app, 'other')
  const admin = await registerAdmin(app)
  const draft = await createPost(app, author, { status: 'draft' })
  await warm(app, draft.id, author)
  t.equal((await read(app, draft.id)).statusCode, 404)
  t.equal((await read(app, draft.id, other)).statusCode, 404)
  t.equal((await read(app, draft.id, admin)).statusCode, 200)
  t.equal((await read(app, draft.id, author)).statusCode, 200)
})

t.test('If-None-Match is answered 304 from the cache', async (t) => {
  const app = await build(t)
  const author = await registerUser(app)
  const post = await createPost(app, author, { status: 'published' })
  const first = await read(app, post.id)
  const etag = first.headers.etag as string
  const before = app.services.postCache.stats()
  const conditional = await app.inject({ method: 'GET', url: `/posts/${post.id}`, headers: { 'if-none-match': etag } })
  t.equal(conditional.statusCode, 304)
  t.equal(conditional.headers.etag, etag)
  t.equal(conditional.body, '')
  const after = app.services.postCache.stats()
  t.same([after.hits - before.hits, after.misses - before.misses], [1, 0], 'a hit, no database read')
  t.equal(
    (await app.inject({ method: 'GET', url: `/posts/${post.id}`, headers: { 'if-none-match': '"other"' } })).statusCode,
    200,
  )
})

t.test('concurrent misses for one post make one database read; hits, misses and evictions are counted', async (t) => {
  const app = await build(t, { POST_CACHE_MAX_ENTRIES: '2' })
  const author = await registerUser(app)
  const posts = [
    await createPost(app, author, { status: 'published' }),
    await createPost(app, author, { status: 'published' }),
    await createPost(app, author, { status: 'published' }),
  ]
  const start = app.services.postCache.stats()
  const responses = await Promise.all(Array.from({ length: 20 }, () => read(app, posts[0]!.id)))
  t.ok(responses.every((response) => response.statusCode === 200))
  const afterBurst = app.services.postCache.stats()
  t.equal(afterBurst.misses - start.misses, 1, 'twenty concurrent reads of a cold post, one load')

  await read(app, posts[1]!.id)
  await read(app, posts[2]!.id)
  const full = app.services.postCache.stats()
  t.equal(full.entries, 2, 'bounded by POST_CACHE_MAX_ENTRIES')
  t.equal(full.evictions - start.evictions, 1, 'the least recently used post was evicted')
})

t.test('with the cache off, every read goes to the database and still works', async (t) => {
  const app = await build(t, { POST_CACHE_MAX_ENTRIES: '0' })
  const author = await registerUser(app)
  const post = await createPost(app, author, { status: 'published' })
  await read(app, post.id)
  await read(app, post.id)
  const stats = app.services.postCache.stats()
  t.same([stats.hits, stats.entries], [0, 0])
  await app.inject({ method: 'PATCH', url: `/posts/${post.id}`, headers: author.auth, payload: { title: 'Uncached' } })
  t.equal((await read(app, post.id)).json().data.title, 'Uncached')
})

t.test("the cache's hits, misses, evictions and size are in GET /metrics", async (t) => {
  const app = await build(t, { POST_CACHE_MAX_ENTRIES: '1' })
  const author = await registerUser(app)
  const [first, second] = [
    await createPost(app, author, { status: 'published' }),
    await createPost(app, author, { status: 'published' }),
  ]
  await read(app, first.id)
  await read(app, first.id)
  await read(app, second.id)
  const text = (await app.inject({ method: 'GET', url: '/metrics' })).body
  t.match(text, /^blog_post_cache_hits_total 1$/m)
  t.match(text, /^blog_post_cache_misses_total 2$/m)
  t.match(text, /^blog_post_cache_evictions_total 1$/m)
  t.match(text, /^blog_post_cache_entries 1$/m)
  t.match(text, /^blog_post_cache_bytes [1-9]\d*$/m)
})
