// Changing a post's slug (updatePost): the old slug keeps leading to the post, answered as the
// current one; no other post may take it meanwhile; a post keeps 10 earlier slugs, and lets go of
// the oldest past them; a new title keeps the slug; a deleted post lets all of its slugs go.
import t from 'tap'
import { build } from '../../helpers/build.ts'
import { registerUser } from '../../helpers/accounts.ts'
import { createPost } from '../../helpers/posts.ts'
import { changeSlug, readBySlug, uniqueTag } from '../../helpers/slugs.ts'

t.test('a changed slug: the old one still leads to the post, and is reserved for it', async (t) => {
  const app = await build(t)
  const [author, other] = [await registerUser(app), await registerUser(app, 'other')]
  const tag = uniqueTag()
  const post = await createPost(app, author, { title: `Six days on the Via Alpina ${tag}`, status: 'published' })
  const first = post.slug as string

  const renamed = await changeSlug(app, author, post.id, `via-alpina-${tag}`)
  t.equal(renamed.statusCode, 200)
  t.equal(renamed.json().data.slug, `via-alpina-${tag}`)
  const byNew = await readBySlug(app, `via-alpina-${tag}`)
  const byOld = await readBySlug(app, first)
  const byId = await app.inject({ method: 'GET', url: `/posts/${post.id}` })
  t.equal(byOld.statusCode, 200, 'the old slug resolves: no redirect')
  t.same(byOld.json().data, byNew.json().data, 'to the post as it is now')
  t.equal(byOld.json().data.slug, `via-alpina-${tag}`, 'whose slug says which is current')
  t.equal(byOld.headers.etag, byNew.headers.etag, 'one ETag whichever slug was asked for')
  t.equal(byNew.headers.etag, byId.headers.etag, "and getPost's")

  const retitled = await app.inject({
    method: 'PATCH',
    url: `/posts/${post.id}`,
    headers: author.auth,
    payload: { title: 'Another title entirely' },
  })
  t.equal(retitled.json().data.slug, `via-alpina-${tag}`, 'a new title keeps the slug')

  const taking = await app.inject({
    method: 'POST',
    url: '/posts',
    headers: other.auth,
    payload: { title: 'Mine now', body: 'B', slug: first },
  })
  t.equal(taking.statusCode, 409, 'an old slug is not free')
  t.equal(taking.json().error.code, 'POST_SLUG_TAKEN')
  const derived = await createPost(app, other, { title: `Six days on the Via Alpina ${tag}` })
  t.equal(derived.slug, `${first}-2`, 'nor for a derived slug')
  const moving = await changeSlug(app, other, derived.id, first)
  t.equal(moving.statusCode, 409, 'nor for another post changing its slug')
  t.equal((await readBySlug(app, first)).json().data.id, post.id, 'which still leads to the first post')
  t.equal((await changeSlug(app, other, derived.id, `via-alpina-${tag}`)).statusCode, 409, 'a current slug neither')

  const back = await changeSlug(app, author, post.id, first)
  t.equal(back.statusCode, 200, 'the post may take back an earlier slug of its own')
  t.equal(back.json().data.slug, first)
  t.equal((await changeSlug(app, author, post.id, first)).statusCode, 200, 'its current slug is no conflict')
  t.equal((await readBySlug(app, `via-alpina-${tag}`)).json().data.slug, first)
})

t.test('a post keeps its 10 most recent earlier slugs; renaming in a loop grows nothing', async (t) => {
  const app = await build(t)
  const [author, other] = [await registerUser(app), await registerUser(app, 'other')]
  const tag = uniqueTag()
  const post = await createPost(app, author, { title: `Renamed often ${tag}`, status: 'published' })
  const slugs = [post.slug as string]
  for (let n = 1; n <= 14; n++) {
    const slug = `renamed-${tag}-v${n}`
    t.equal((await changeSlug(app, author, post.id, slug)).statusCode, 200)
    slugs.push(slug)
  }
  const rows = await app.services.database.prisma.postSlug.findMany({ where: { postId: post.id } })
  t.equal(rows.length, 11, 'the current slug and 10 earlier ones are stored')
  t.same(rows.map((row) => row.slug).sort(), slugs.slice(-11).sort(), 'the most recent')
  for (const slug of slugs.slice(0, 4)) t.equal((await readBySlug(app, slug, author)).statusCode, 404, `${slug} let go`)
  for (const slug of slugs.slice(4)) t.equal((await readBySlug(app, slug, author)).json().data.id, post.id, slug)

  const reused = await createPost(app, other, { title: 'Reuse', slug: slugs[0] })
  t.equal(reused.slug, slugs[0], 'a slug let go is free again')
  t.equal((await readBySlug(app, slugs[0]!, other)).json().data.id, reused.id, 'and leads to its new post')
})

t.test('a deleted post lets its slugs go', async (t) => {
  const app = await build(t)
  const author = await registerUser(app)
  const tag = uniqueTag()
  const post = await createPost(app, author, { title: `Short-lived ${tag}`, status: 'published' })
  await changeSlug(app, author, post.id, `short-lived-${tag}-renamed`)
  t.equal((await app.inject({ method: 'DELETE', url: `/posts/${post.id}`, headers: author.auth })).statusCode, 204)
  for (const slug of [`short-lived-${tag}`, `short-lived-${tag}-renamed`]) {
    t.equal((await readBySlug(app, slug)).statusCode, 404, slug)
    t.equal((await createPost(app, author, { title: 'Again', slug })).slug, slug, `${slug} is free`)
  }
})

t.test('a post not published lets its old slug go when renamed: no links to keep, no slugs to hoard', async (t) => {
  const app = await build(t)
  const [author, other] = [await registerUser(app), await registerUser(app, 'other')]
  const tag = uniqueTag()
  const draft = await createPost(app, author, { title: `Draft ${tag}`, slug: `draft-first-${tag}` })
  for (let round = 1; round <= 3; round++)
    t.equal((await changeSlug(app, author, draft.id, `draft-${round}-${tag}`)).statusCode, 200)
  const taken = await createPost(app, other, { title: 'Mine now', slug: `draft-first-${tag}`, status: 'published' })
  t.equal(taken.slug, `draft-first-${tag}`, "a draft's first slug is free once it moved on")
  t.equal((await readBySlug(app, `draft-first-${tag}`)).json().data.id, taken.id, 'and leads to its new post')
  t.equal(
    (await createPost(app, other, { title: 'And this', slug: `draft-2-${tag}` })).slug,
    `draft-2-${tag}`,
    'so is every slug it had',
  )
  t.equal((await readBySlug(app, `draft-3-${tag}`, author)).json().data.id, draft.id, 'its current slug is its own')
})
