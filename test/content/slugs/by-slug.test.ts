// getPostBySlug follows getPost's rules: drafts and scheduled posts exist only for their author
// (to anyone else, the very answer a slug of no post gets; admins read them by id, since
// unpublished posts claim no slug and may share one), the same ETag and 304.
import t from 'tap'
import { build } from '../../helpers/build.ts'
import { registerAdmin, registerUser, type Account } from '../../helpers/accounts.ts'
import { createPost } from '../../helpers/posts.ts'
import { readBySlug, uniqueTag } from '../../helpers/slugs.ts'

/** An answer as a client compares them: status and error, the request id aside. */
const outcome = async (response: Awaited<ReturnType<typeof readBySlug>>) => ({
  status: response.statusCode,
  error: response.json().error,
})

t.test('unpublished posts by slug: hidden exactly as by id, shown to their author; admins by id', async (t) => {
  const app = await build(t)
  const [author, other, admin] = [await registerUser(app), await registerUser(app, 'other'), await registerAdmin(app)]
  const tag = uniqueTag()
  const missing = await outcome(await readBySlug(app, `no-post-has-this-${tag}`))
  t.match(missing, { status: 404, error: { code: 'POST_NOT_FOUND' } })

  for (const status of ['draft', 'scheduled'] as const) {
    const post = await createPost(app, author, {
      title: `Unpublished ${status} ${tag}`,
      status,
      ...(status === 'scheduled' ? { publishedAt: new Date(Date.now() + 86_400_000).toISOString() } : {}),
    })
    const slug = post.slug as string
    for (const [who, account] of [
      ['anonymous', undefined],
      ['another user', other],
    ] as [string, Account | undefined][]) {
      t.same(await outcome(await readBySlug(app, slug, account)), missing, `${status}, ${who}: as a slug of no post`)
      const byId = await app.inject({ method: 'GET', url: `/posts/${post.id}`, headers: account?.auth ?? {} })
      t.same(await outcome(byId), missing, `${status}, ${who}: as by id`)
    }
    const read = await readBySlug(app, slug, author)
    t.equal(read.statusCode, 200, `${status}: its author`)
    t.equal(read.json().data.id, post.id)
    t.same(await outcome(await readBySlug(app, slug, admin)), missing, `${status}, an admin: not by slug`)
    const byId = await app.inject({ method: 'GET', url: `/posts/${post.id}`, headers: admin.auth })
    t.equal(byId.statusCode, 200, `${status}, an admin: by id`)
  }
})

t.test('ETag and If-None-Match → 304, as getPost, whichever slug is asked for', async (t) => {
  const app = await build(t)
  const author = await registerUser(app)
  const post = await createPost(app, author, { title: `Conditional ${uniqueTag()}`, status: 'published' })
  const read = await readBySlug(app, post.slug as string)
  const etag = read.headers.etag as string
  t.equal(etag, (await app.inject({ method: 'GET', url: `/posts/${post.id}` })).headers.etag, "getPost's ETag")
  const notModified = await readBySlug(app, post.slug as string, undefined, { 'if-none-match': etag })
  t.equal(notModified.statusCode, 304)
  t.equal(notModified.body, '')
  t.equal(notModified.headers.etag, etag)
  t.equal((await readBySlug(app, post.slug as string, undefined, { 'if-none-match': '"other"' })).statusCode, 200)

  const renamed = await app.inject({
    method: 'PATCH',
    url: `/posts/${post.id}`,
    headers: author.auth,
    payload: { slug: `${post.slug}-renamed` },
  })
  const newEtag = renamed.headers.etag as string
  t.not(newEtag, etag, 'the slug is part of the post: a new one is a new ETag')
  t.equal((await readBySlug(app, post.slug as string, undefined, { 'if-none-match': etag })).statusCode, 200)
  t.equal((await readBySlug(app, post.slug as string, undefined, { 'if-none-match': newEtag })).statusCode, 304)
})

t.test('slugs that spell the other routes under /posts/{id}/ are slugs: the fixed segment wins', async (t) => {
  const app = await build(t)
  const admin = await registerAdmin(app)
  for (const slug of ['comments', 'thumbnail']) {
    // 201, or 409 where an earlier run on the shared PostgreSQL made it already.
    const made = await app.inject({
      method: 'POST',
      url: '/posts',
      headers: admin.auth,
      payload: { title: slug, body: 'B', slug },
    })
    t.ok([201, 409].includes(made.statusCode), `a post has the slug ${slug}`)
    const read = await readBySlug(app, slug, admin)
    t.equal(read.statusCode, 200, `GET /posts/by-slug/${slug} is getPostBySlug`)
    t.ok(read.json().data.id)
  }
})
