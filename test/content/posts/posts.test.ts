// Posts over HTTP: creation rules, visibility, conditional requests, and who may change what.
import t from 'tap'
import { build } from '../../helpers/build.ts'
import { registerAdmin, registerUser } from '../../helpers/accounts.ts'
import { createCategory } from '../../helpers/content.ts'
import { createPost } from '../../helpers/posts.ts'

t.test('createPost and getPost', async (t) => {
  const app = await build(t)
  const author = await registerUser(app)

  const created = await app.inject({
    method: 'POST',
    url: '/posts',
    headers: author.auth,
    payload: {
      title: 'Hello',
      body: '# Heading\n\nSome *emphasis* and a [link](https://example.com).',
      status: 'published',
    },
  })
  t.equal(created.statusCode, 201)
  const post = created.json().data
  t.match(post, {
    title: 'Hello',
    status: 'published',
    publishedAt: String,
    author: { id: author.id },
    commentCount: 0,
    thumbnail: null,
  })
  t.equal(post.excerpt, 'Heading Some emphasis and a link.', 'excerpt derived from the Markdown')
  t.match(post.categories, [{ slug: 'uncategorized' }], 'the default category')
  t.ok(created.headers.etag)

  const read = await app.inject({ method: 'GET', url: `/posts/${post.id}` })
  t.equal(read.statusCode, 200)
  t.same(read.json().data, post)
  t.equal(read.headers.etag, created.headers.etag)
  const notModified = await app.inject({
    method: 'GET',
    url: `/posts/${post.id}`,
    headers: { 'if-none-match': read.headers.etag as string },
  })
  t.equal(notModified.statusCode, 304)
  t.equal(notModified.body, '')
  t.equal(
    (await app.inject({ method: 'GET', url: `/posts/${post.id}`, headers: { 'if-none-match': '"other"' } })).statusCode,
    200,
  )
  t.equal(
    (await app.inject({ method: 'GET', url: '/posts/0192f7c4-5a2b-7c3d-8e4f-123456789abc' })).json().error.code,
    'POST_NOT_FOUND',
  )
})

t.test(
  'a category id in capitals is the same category: twice in two spellings is a duplicate, as twice in one is',
  async (t) => {
    const app = await build(t)
    const [author, admin] = [await registerUser(app), await registerAdmin(app)]
    const category = await createCategory(app, admin)
    for (const categoryIds of [
      [category.id.toUpperCase(), category.id],
      [category.id, category.id],
    ]) {
      const twice = await app.inject({
        method: 'POST',
        url: '/posts',
        headers: author.auth,
        payload: { title: 'T', body: 'B', categoryIds },
      })
      t.equal(twice.statusCode, 400)
      t.match(twice.json().error.details, [{ path: '/body/categoryIds', code: 'uniqueItems' }])
    }
    const created = await app.inject({
      method: 'POST',
      url: '/posts',
      headers: author.auth,
      payload: { title: 'T', body: 'B', categoryIds: [category.id.toUpperCase()] },
    })
    const post = created.json().data
    t.same(
      post.categories.map((filed: { id: string }) => filed.id),
      [category.id],
    )
    const edited = await app.inject({
      method: 'PATCH',
      url: `/posts/${post.id}`,
      headers: author.auth,
      payload: { categoryIds: [category.id.toUpperCase()] },
    })
    t.same(
      edited.json().data.categories.map((filed: { id: string }) => filed.id),
      [category.id],
    )
  },
)

t.test('bodies with unknown or forbidden fields are 400 naming the field', async (t) => {
  const app = await build(t)
  const author = await registerUser(app)
  for (const field of ['authorId', 'commentCount', 'id', 'createdAt', 'author']) {
    const response = await app.inject({
      method: 'POST',
      url: '/posts',
      headers: author.auth,
      payload: { title: 'T', body: 'B', [field]: 'x' },
    })
    t.equal(response.statusCode, 400, field)
    t.match(response.json().error.details, [{ path: `/body/${field}` }])
  }
  const post = await createPost(app, author)
  const patch = await app.inject({
    method: 'PATCH',
    url: `/posts/${post.id}`,
    headers: author.auth,
    payload: { commentCount: 5 },
  })
  t.equal(patch.statusCode, 400)
  t.match(patch.json().error.details, [{ path: '/body/commentCount' }])
  const unknownCategory = await app.inject({
    method: 'POST',
    url: '/posts',
    headers: author.auth,
    payload: { title: 'T', body: 'B', categoryIds: ['0192f7c4-5a2b-7c3d-8e4f-123456789abc'] },
  })
  t.equal(unknownCategory.statusCode, 422)
  t.match(unknownCategory.json().error, { code: 'CATEGORY_NOT_FOUND', details: [{ path: '/body/categoryIds/0' }] })
  const pastSchedule = await app.inject({
    method: 'POST',
    url: '/posts',
    headers: author.auth,
    payload: { title: 'T', body: 'B', status: 'scheduled', publishedAt: '2020-01-01T00:00:00Z' },
  })
  t.equal(pastSchedule.statusCode, 400)
  t.match(pastSchedule.json().error.details, [{ path: '/body/publishedAt' }])
})

t.test('a draft is 404 to anonymous and to another user, 200 to its author and an admin', async (t) => {
  const app = await build(t)
  const [author, stranger, admin] = [await registerUser(app), await registerUser(app), await registerAdmin(app)]
  for (const status of ['draft', 'scheduled']) {
    const extra = status === 'scheduled' ? { publishedAt: new Date(Date.now() + 3_600_000).toISOString() } : {}
    const post = await createPost(app, author, { status, ...extra })
    const get = (headers = {}) => app.inject({ method: 'GET', url: `/posts/${post.id}`, headers })
    t.equal((await get()).statusCode, 404, `${status}: anonymous`)
    t.equal((await get(stranger.auth)).statusCode, 404, `${status}: another user`)
    t.equal((await get(author.auth)).statusCode, 200, `${status}: its author`)
    t.equal((await get(admin.auth)).statusCode, 200, `${status}: an admin`)
  }
})

t.test('If-Match: 412 when the post changed meanwhile, so two editors cannot overwrite each other', async (t) => {
  const app = await build(t)
  const author = await registerUser(app)
  const post = await createPost(app, author)
  const etag = (await app.inject({ method: 'GET', url: `/posts/${post.id}`, headers: author.auth })).headers
    .etag as string
  const first = await app.inject({
    method: 'PATCH',
    url: `/posts/${post.id}`,
    headers: { ...author.auth, 'if-match': etag },
    payload: { title: 'First editor' },
  })
  t.equal(first.statusCode, 200)
  t.not(first.headers.etag, etag, 'a new ETag')
  const second = await app.inject({
    method: 'PATCH',
    url: `/posts/${post.id}`,
    headers: { ...author.auth, 'if-match': etag },
    payload: { title: 'Second editor' },
  })
  t.equal(second.statusCode, 412)
  t.equal(second.json().error.code, 'PRECONDITION_FAILED')
  const staleDelete = await app.inject({
    method: 'DELETE',
    url: `/posts/${post.id}`,
    headers: { ...author.auth, 'if-match': etag },
  })
  t.equal(staleDelete.statusCode, 412)
  const freshDelete = await app.inject({
    method: 'DELETE',
    url: `/posts/${post.id}`,
    headers: { ...author.auth, 'if-match': first.headers.etag as string },
  })
  t.equal(freshDelete.statusCode, 204)
  t.equal((await app.inject({ method: 'GET', url: `/posts/${post.id}`, headers: author.auth })).statusCode, 404)
})

t.test('status rules: publishing sets publishedAt, back to draft clears it', async (t) => {
  const app = await build(t)
  const author = await registerUser(app)
  const post = await createPost(app, author)
  t.equal(post.publishedAt, null)
  const published = await app.inject({
    method: 'PATCH',
    url: `/posts/${post.id}`,
    headers: author.auth,
    payload: { status: 'published' },
  })
  t.match(published.json().data, { status: 'published', publishedAt: String })
  const refused = await app.inject({
    method: 'PATCH',
    url: `/posts/${post.id}`,
    headers: author.auth,
    payload: { publishedAt: new Date(Date.now() + 60_000).toISOString() },
  })
  t.equal(refused.statusCode, 400, 'publishedAt only when the post ends up scheduled')
  const draft = await app.inject({
    method: 'PATCH',
    url: `/posts/${post.id}`,
    headers: author.auth,
    payload: { status: 'draft' },
  })
  t.match(draft.json().data, { status: 'draft', publishedAt: null })
  const body = await app.inject({
    method: 'PATCH',
    url: `/posts/${post.id}`,
    headers: author.auth,
    payload: { body: 'A new body' },
  })
  t.equal(body.json().data.excerpt, 'A new body', 'the excerpt follows the body')
})
