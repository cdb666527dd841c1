// listPosts: keyset paging that returns each post once while posts are being written, and filters
// that return only what they should. Each test writes its own posts under its own author, so the
// assertions hold on a shared PostgreSQL too.
import { randomUUID } from 'node:crypto'
import t from 'tap'
import { build } from '../helpers/build.ts'
import { registerAdmin, registerUser, type Account } from '../helpers/accounts.ts'
import { createPost } from '../helpers/posts.ts'

type App = Awaited<ReturnType<typeof build>>

async function listAll(app: App, query: string, headers: Record<string, string> = {}, during?: () => Promise<unknown>) {
  const ids: string[] = []
  let cursor: string | null = null
  do {
    const response: Awaited<ReturnType<App['inject']>> = await app.inject({ method: 'GET', url: `/posts?${query}&limit=4${cursor ? `&cursor=${cursor}` : ''}`, headers })
    if (response.statusCode !== 200) throw new Error(`${response.statusCode} ${response.body}`)
    const body: { data: { id: string }[]; meta: { page: { nextCursor: string | null } } } = response.json()
    ids.push(...body.data.map((post: { id: string }) => post.id))
    cursor = body.meta.page.nextCursor
    await during?.()
  } while (cursor)
  return ids
}

t.test('paging returns every post exactly once, newest first, while posts are being created', async (t) => {
  const app = await build(t)
  const author = await registerUser(app)
  const existing: string[] = []
  for (let i = 0; i < 13; i++) existing.push((await createPost(app, author, { status: 'published', title: `Post ${i}` })).id)
  const newer: string[] = []
  const seen = await listAll(app, `author=${author.id}`, {}, async () => newer.push((await createPost(app, author, { status: 'published' })).id))
  t.equal(new Set(seen).size, seen.length, 'no post twice')
  t.same(seen, [...existing].reverse(), 'each existing post once, newest first; posts created meanwhile come before the cursor')
  t.ok(newer.length >= 3)
  const first = await app.inject({ method: 'GET', url: `/posts?author=${author.id}&limit=2` })
  t.match(first.json(), { data: [{ id: newer.at(-1) }, { id: newer.at(-2) }], meta: { page: { limit: 2, nextCursor: String } } })
  t.equal((await app.inject({ method: 'GET', url: '/posts?cursor=not-a-cursor' })).statusCode, 400)
})

t.test('filters: category by id or slug, author, search, status', async (t) => {
  const app = await build(t)
  const [author, other, admin] = [await registerUser(app), await registerUser(app), await registerAdmin(app)]
  const slug = `travel-${randomUUID().slice(0, 8)}`
  const category = await app.inject({ method: 'POST', url: '/categories', headers: admin.auth, payload: { name: 'Travel', slug } })
  t.equal(category.statusCode, 201)
  const categoryId = category.json().data.id
  const word = `zeppelin${randomUUID().slice(0, 6)}`

  const filed = await createPost(app, author, { status: 'published', categoryIds: [categoryId] })
  const searched = await createPost(app, author, { status: 'published', body: `We flew a ${word} over the lake.` })
  const draft = await createPost(app, author, { status: 'draft' })
  const othersDraft = await createPost(app, other as Account, { status: 'draft' })
  await createPost(app, other, { status: 'published', categoryIds: [categoryId] })

  t.same(await listAll(app, `category=${slug}&author=${author.id}`), [filed.id], 'by slug')
  t.same(await listAll(app, `category=${categoryId}&author=${author.id}`), [filed.id], 'by id')
  t.same(await listAll(app, `category=no-such-category`), [], 'an unknown category is an empty list')
  t.same(await listAll(app, `q=${word}`), [searched.id], 'full-text search')
  t.same(await listAll(app, `author=${author.id}`), [searched.id, filed.id], 'published only by default')
  t.same(await listAll(app, `status=draft&author=${author.id}`), [], 'anonymous callers see no drafts')
  t.same(await listAll(app, 'status=draft', author.auth), [draft.id], "a user's own drafts only")
  const adminDrafts = await listAll(app, 'status=draft', admin.auth)
  t.ok(adminDrafts.includes(draft.id) && adminDrafts.includes(othersDraft.id), 'an admin sees every draft')
})
