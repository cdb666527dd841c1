// Post revisions over HTTP: each content write makes one with the fields it changed, an update
// that changes nothing makes none, a restore brings the content back through updatePost (a new
// revision, a new ETag, caches told, on a second instance too), and a deleted post's go with it.
import t from 'tap'
import { registerAdmin, registerUser } from '../../helpers/accounts.ts'
import { build, usingPostgres } from '../../helpers/build.ts'
import { createCategory } from '../../helpers/content.ts'
import { heardEverythingSentBefore } from '../../helpers/notifications.ts'
import { createPost } from '../../helpers/posts.ts'
import { restore, revisionRows, revisionsOf } from '../../helpers/revisions.ts'

const ALL = ['title', 'body', 'excerpt', 'slug', 'categories', 'status', 'publishedAt', 'thumbnail']

t.test('edit ×3: three revisions after the create’s, each with the fields it changed', async (t) => {
  const app = await build(t)
  const author = await registerUser(app, 'rev-author')
  const admin = await registerAdmin(app)
  const category = await createCategory(app, admin)
  const post = await createPost(app, author, { title: 'First title', body: 'First body.' })
  const patch = (payload: Record<string, unknown>, headers = author.auth) =>
    app.inject({ method: 'PATCH', url: `/posts/${post.id}`, headers, payload })

  t.equal((await patch({ title: 'Second title' })).statusCode, 200)
  t.equal((await patch({ body: 'Second body.' })).statusCode, 200)
  t.equal((await patch({ categoryIds: [category.id], status: 'published' }, admin.auth)).statusCode, 200)

  const listed = await revisionsOf(app, post.id, author.auth)
  t.same(
    listed.map(({ number, changed }) => [number, changed]),
    [
      [4, ['categories', 'status', 'publishedAt']],
      [3, ['body', 'excerpt']],
      [2, ['title']],
      [1, ALL],
    ],
    'newest first, each naming what it changed (a new body derives a new excerpt)',
  )
  t.same(listed[0]!.editor?.id, admin.id, 'the admin made the last one')
  t.same(listed[3]!.editor?.id, author.id, 'the author the first')
  t.same(
    listed.map((revision) => revision.title),
    ['Second title', 'Second title', 'Second title', 'First title'],
  )

  const paged = await revisionsOf(app, post.id, author.auth, 1)
  t.same(paged, listed, 'pages of one, by cursor, give the same list')

  const first = await app.inject({
    method: 'GET',
    url: `/posts/${post.id}/revisions/${listed[3]!.id}`,
    headers: author.auth,
  })
  t.equal(first.statusCode, 200)
  t.match(first.json().data, {
    number: 1,
    title: 'First title',
    body: 'First body.',
    status: 'draft',
    publishedAt: null,
  })

  t.test('an update that changes nothing writes none', async (t) => {
    t.equal((await patch({ title: 'Second title' })).statusCode, 200)
    t.equal((await revisionsOf(app, post.id, author.auth)).length, 4)
  })
})

t.test('restore the first: content back, a new revision, a new ETag, caches and lists told', async (t) => {
  const app = await build(t)
  // A second instance on the same database, its cache holding the post before the restore.
  const other = usingPostgres ? await build(t) : null
  const author = await registerUser(app, 'rev-restore')
  const post = await createPost(app, author, { title: 'Original', body: 'Original body.', status: 'published' })
  for (const title of ['Defaced one', 'Defaced two', 'Defaced three'])
    await app.inject({
      method: 'PATCH',
      url: `/posts/${post.id}`,
      headers: author.auth,
      payload: { title, body: `${title}!` },
    })
  const before = await app.inject({ method: 'GET', url: `/posts/${post.id}` })
  t.equal(before.json().data.title, 'Defaced three')
  if (other)
    t.equal((await other.inject({ method: 'GET', url: `/posts/${post.id}` })).json().data.title, 'Defaced three')
  const listed = await revisionsOf(app, post.id, author.auth)
  t.equal(listed.length, 4)

  const stale = await app.inject({
    method: 'POST',
    url: `/posts/${post.id}/revisions/${listed[3]!.id}/restore`,
    headers: { ...author.auth, 'if-match': '"not-the-etag"' },
  })
  t.same([stale.statusCode, stale.json().error.code], [412, 'PRECONDITION_FAILED'], 'If-Match honoured')

  const restored = await app.inject({
    method: 'POST',
    url: `/posts/${post.id}/revisions/${listed[3]!.id}/restore`,
    headers: { ...author.auth, 'if-match': String(before.headers.etag) },
  })
  t.equal(restored.statusCode, 200)
  t.match(restored.json().data, { title: 'Original', body: 'Original body.', status: 'published' })
  t.not(restored.headers.etag, before.headers.etag, 'a new ETag')
  const after = await revisionsOf(app, post.id, author.auth)
  t.same(after[0], { ...after[0], number: 5, changed: ['title', 'body', 'excerpt'], title: 'Original' })
  t.equal((await app.inject({ method: 'GET', url: `/posts/${post.id}` })).json().data.title, 'Original')
  const list = await app.inject({ method: 'GET', url: '/posts?limit=100' })
  t.ok(list.json().data.some((item: { id: string; title: string }) => item.id === post.id && item.title === 'Original'))
  if (other) {
    t.ok(await heardEverythingSentBefore(other), 'the other instance heard the restore')
    t.equal((await other.inject({ method: 'GET', url: `/posts/${post.id}` })).json().data.title, 'Original')
    const otherList = await other.inject({ method: 'GET', url: '/posts?limit=100' })
    t.ok(
      otherList
        .json()
        .data.some((item: { id: string; title: string }) => item.id === post.id && item.title === 'Original'),
    )
    t.equal((await revisionsOf(other, post.id, author.auth))[0]!.number, 5, 'and lists the new revision')
  }
})

t.test(
  'restore brings the status back, leaves deleted categories out, and refuses a slug taken meanwhile',
  async (t) => {
    const app = await build(t)
    const author = await registerUser(app, 'rev-slug')
    const admin = await registerAdmin(app)
    const gone = await createCategory(app, admin)
    const post = await createPost(app, author, { title: 'Kept slug', categoryIds: [gone.id], status: 'published' })
    const [first] = (await revisionsOf(app, post.id, author.auth)).slice(-1)
    await app.inject({
      method: 'PATCH',
      url: `/posts/${post.id}`,
      headers: author.auth,
      payload: { slug: 'moved-away', status: 'draft', categoryIds: [] },
    })
    t.equal(
      (await app.inject({ method: 'DELETE', url: `/categories/${gone.id}`, headers: admin.auth })).statusCode,
      204,
    )
    const restored = await restore(app, post.id, first!.id, author.auth)
    t.equal(restored.statusCode, 200)
    t.match(restored.json().data, { status: 'published', slug: post.slug, publishedAt: post.publishedAt })
    t.equal(restored.json().data.categories.length, 1, 'the default category')

    // Unpublished again, its slugs let go; another user's post is published on its first slug.
    await app.inject({
      method: 'PATCH',
      url: `/posts/${post.id}`,
      headers: author.auth,
      payload: { slug: 'moved-again', status: 'draft' },
    })
    const other = await registerUser(app, 'rev-slug-taker')
    await createPost(app, other, { title: 'Taker', slug: post.slug as string, status: 'published' })
    const taken = await restore(app, post.id, first!.id, author.auth)
    t.same([taken.statusCode, taken.json().error.code], [409, 'POST_SLUG_TAKEN'], 'publishing claims the slug')
    const kept = await app.inject({ method: 'GET', url: `/posts/${post.id}`, headers: author.auth })
    t.match(kept.json().data, { status: 'draft', slug: 'moved-again' }, 'and nothing changes')
  },
)

t.test("a deleted post's revisions: 404, and the rows are gone", async (t) => {
  const app = await build(t)
  const author = await registerUser(app, 'rev-delete')
  const post = await createPost(app, author)
  const [first] = await revisionsOf(app, post.id, author.auth)
  t.equal((await app.inject({ method: 'DELETE', url: `/posts/${post.id}`, headers: author.auth })).statusCode, 204)
  for (const url of [`/posts/${post.id}/revisions`, `/posts/${post.id}/revisions/${first!.id}`]) {
    const answer = await app.inject({ method: 'GET', url, headers: author.auth })
    t.same([answer.statusCode, answer.json().error.code], [404, 'POST_NOT_FOUND'], url)
  }
  const restored = await restore(app, post.id, first!.id, author.auth)
  t.same([restored.statusCode, restored.json().error.code], [404, 'POST_NOT_FOUND'])
  t.same(await revisionRows(app, post.id), [])
})

t.test(
  'a revision names what its own write changed: a category deleted meanwhile is not the next editor’s',
  async (t) => {
    const app = await build(t)
    const author = await registerUser(app, 'rev-drift')
    const admin = await registerAdmin(app)
    const doomed = await createCategory(app, admin)
    const post = await createPost(app, author, { title: 'Filed', categoryIds: [doomed.id] })
    // Deleting the category moves the post to the default one, without a revision.
    t.equal(
      (await app.inject({ method: 'DELETE', url: `/categories/${doomed.id}`, headers: admin.auth })).statusCode,
      204,
    )
    const patch = (payload: Record<string, unknown>) =>
      app.inject({ method: 'PATCH', url: `/posts/${post.id}`, headers: author.auth, payload })

    t.equal((await patch({ title: 'Filed' })).statusCode, 200)
    t.equal((await revisionsOf(app, post.id, author.auth)).length, 1, 'a write that changed nothing writes none')

    t.equal((await patch({ title: 'Retitled' })).statusCode, 200)
    const [newest] = await revisionsOf(app, post.id, author.auth)
    t.same([newest!.number, newest!.changed, newest!.editor?.id], [2, ['title'], author.id], 'the title only')
    const read = await app.inject({
      method: 'GET',
      url: `/posts/${post.id}/revisions/${newest!.id}`,
      headers: author.auth,
    })
    const current = await app.inject({ method: 'GET', url: `/posts/${post.id}`, headers: author.auth })
    t.same(
      read.json().data.categoryIds,
      current.json().data.categories.map((category: { id: string }) => category.id),
      'its content is still the post as the write left it: the default category',
    )
    t.not(read.json().data.categoryIds[0], doomed.id)
  },
)
