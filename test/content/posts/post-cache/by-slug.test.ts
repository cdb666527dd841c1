// getPostBySlug from memory, never following a slug to the wrong post: a repeated read costs no
// database round trip (the slug map, then the post cache), and every way a slug can come to lead
// elsewhere (let go past the earlier slugs kept, its post deleted, its author's account deleted)
// is seen by the next read. Each case first reads by the slug, so a stale map shows as the old post.
import t from 'tap'
import { build } from '../../../helpers/build.ts'
import { registerUser, type Account } from '../../../helpers/accounts.ts'
import { createPost } from '../../../helpers/posts.ts'
import { changeSlug, readBySlug, uniqueTag } from '../../../helpers/slugs.ts'

type App = Awaited<ReturnType<typeof build>>

/** Reads by the slug twice, the second time from memory; the post's id. */
async function warm(app: App, slug: string, account?: Account): Promise<string> {
  await readBySlug(app, slug, account)
  const [slugs, posts] = [app.services.slugCache.stats(), app.services.postCache.stats()]
  const read = await readBySlug(app, slug, account)
  const [slugsAfter, postsAfter] = [app.services.slugCache.stats(), app.services.postCache.stats()]
  if (read.statusCode !== 200) throw new Error(`GET by slug ${slug}: ${read.statusCode}`)
  if (slugsAfter.hits !== slugs.hits + 1 || slugsAfter.misses !== slugs.misses || postsAfter.hits !== posts.hits + 1)
    throw new Error('the post was not served from memory')
  return read.json().data.id
}

t.test('a repeated read by slug is served from memory: no database round trip', async (t) => {
  const app = await build(t)
  const author = await registerUser(app)
  const post = await createPost(app, author, { title: `Memory ${uniqueTag()}`, status: 'published' })
  t.equal(await warm(app, post.slug as string), post.id)
  const misses = app.services.postCache.stats().misses
  await app.inject({ method: 'GET', url: `/posts/${post.id}` })
  t.equal(app.services.postCache.stats().misses, misses, 'getPost by id shares the cached post')
})

t.test('a slug that comes to lead to another post is followed there at once', async (t) => {
  const app = await build(t)
  const [author, other] = [await registerUser(app), await registerUser(app, 'other')]
  const tag = uniqueTag()

  t.test('let go after 10 newer slugs, then taken', async (t) => {
    const post = await createPost(app, author, { title: `Let go ${tag}`, status: 'published' })
    const slug = post.slug as string
    t.equal(await warm(app, slug), post.id)
    for (let n = 1; n <= 10; n++) await changeSlug(app, author, post.id, `let-go-${tag}-v${n}`)
    t.equal(await warm(app, slug), post.id, 'still kept after 9 renames and the 10th')
    await changeSlug(app, author, post.id, `let-go-${tag}-v11`)
    t.equal((await readBySlug(app, slug)).statusCode, 404, 'let go by the 11th')
    const taker = await createPost(app, other, { title: 'Taker', slug, status: 'published' })
    t.equal((await readBySlug(app, slug)).json().data.id, taker.id)
  })

  t.test('its post deleted, then taken', async (t) => {
    const post = await createPost(app, author, { title: `Deleted ${tag}`, status: 'published' })
    const slug = post.slug as string
    await warm(app, slug)
    await app.inject({ method: 'DELETE', url: `/posts/${post.id}`, headers: author.auth })
    t.equal((await readBySlug(app, slug)).statusCode, 404)
    const taker = await createPost(app, other, { title: 'Taker', slug, status: 'published' })
    t.equal((await readBySlug(app, slug)).json().data.id, taker.id)
  })

  t.test("its author's account deleted (a write that names the author, not the post), then taken", async (t) => {
    const leaving = await registerUser(app, 'leaving')
    const post = await createPost(app, leaving, { title: `Account gone ${tag}`, status: 'published' })
    const slug = post.slug as string
    await warm(app, slug)
    const deleted = await app.inject({
      method: 'DELETE',
      url: '/me',
      headers: leaving.auth,
      payload: { currentPassword: leaving.password },
    })
    t.equal(deleted.statusCode, 204)
    const taker = await createPost(app, other, { title: 'Taker', slug, status: 'published' })
    t.equal((await readBySlug(app, slug)).json().data.id, taker.id)
  })
})

t.test('with the post cache off (POST_CACHE_MAX_ENTRIES=0), slugs are read from the database', async (t) => {
  const app = await build(t, { POST_CACHE_MAX_ENTRIES: '0' })
  const author = await registerUser(app)
  const post = await createPost(app, author, { title: `No cache ${uniqueTag()}`, status: 'published' })
  for (let read = 0; read < 2; read++) t.equal((await readBySlug(app, post.slug as string)).json().data.id, post.id)
  t.match(app.services.slugCache.stats(), { hits: 0, misses: 2, entries: 0 })
})
