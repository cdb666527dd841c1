// listPosts: keyset paging that returns each post once while posts are being written, and filters
// that return only what they should. Each test writes its own posts under its own author, so the
// assertions hold on a shared PostgreSQL too.
import { randomUUID } from 'node:crypto'
import t from 'tap'
import { build, usingPostgres } from '../../helpers/build.ts'
import { registerAdmin, registerUser } from '../../helpers/accounts.ts'
import { createCategory } from '../../helpers/content.ts'
import { createScratchDatabase } from '../../helpers/postgres.ts'
import { createPost } from '../../helpers/posts.ts'

type App = Awaited<ReturnType<typeof build>>

async function listAll(app: App, query: string, headers: Record<string, string> = {}, during?: () => Promise<unknown>) {
  const ids: string[] = []
  let cursor: string | null = null
  do {
    const response: Awaited<ReturnType<App['inject']>> = await app.inject({
      method: 'GET',
      url: `/posts?${query}&limit=4${cursor ? `&cursor=${cursor}` : ''}`,
      headers,
    })
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
  for (let i = 0; i < 13; i++)
    existing.push((await createPost(app, author, { status: 'published', title: `Post ${i}` })).id)
  const newer: string[] = []
  const seen = await listAll(app, `author=${author.id}`, {}, async () =>
    newer.push((await createPost(app, author, { status: 'published' })).id),
  )
  t.equal(new Set(seen).size, seen.length, 'no post twice')
  t.same(
    seen,
    [...existing].reverse(),
    'each existing post once, newest first; posts created meanwhile come before the cursor',
  )
  t.ok(newer.length >= 3)
  const first = await app.inject({ method: 'GET', url: `/posts?author=${author.id}&limit=2` })
  t.match(first.json(), {
    data: [{ id: newer.at(-1) }, { id: newer.at(-2) }],
    meta: { page: { limit: 2, nextCursor: String } },
  })
  t.equal((await app.inject({ method: 'GET', url: '/posts?cursor=not-a-cursor' })).statusCode, 400)
})

// The filter tests below compare whole id sets, so a filter that lets too much through fails as
// surely as one that lets too little. Each scopes its lists to data of its own (a fresh author, a
// fresh category, a unique word) so the sets are exact on a shared PostgreSQL too.
const sorted = (ids: string[]) => [...ids].sort()
const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString()

t.test('category by id and by slug, and author: each keeps its own posts and no others', async (t) => {
  const app = await build(t)
  const [author, other, admin] = [await registerUser(app), await registerUser(app), await registerAdmin(app)]
  const [travel, food] = [await createCategory(app, admin), await createCategory(app, admin)]
  const authorsTravel = await createPost(app, author, { status: 'published', categoryIds: [travel.id] })
  const authorsFood = await createPost(app, author, { status: 'published', categoryIds: [food.id] })
  const othersTravel = await createPost(app, other, { status: 'published', categoryIds: [travel.id] })
  const othersBoth = await createPost(app, other, { status: 'published', categoryIds: [travel.id, food.id] })
  await createPost(app, author, { status: 'draft', categoryIds: [travel.id] })

  const travelPosts = sorted([authorsTravel.id, othersTravel.id, othersBoth.id])
  t.same(
    sorted(await listAll(app, `category=${travel.slug}`)),
    travelPosts,
    "by slug: the category's published posts, no others",
  )
  t.same(sorted(await listAll(app, `category=${travel.id}`)), travelPosts, 'by id: the same')
  t.same(
    sorted(await listAll(app, `category=${food.id}`)),
    sorted([authorsFood.id, othersBoth.id]),
    'another category: its own posts only',
  )
  t.same(
    sorted(await listAll(app, `author=${author.id}`)),
    sorted([authorsTravel.id, authorsFood.id]),
    "author: that author's published posts only",
  )
  t.same(
    await listAll(app, `category=${travel.slug}&author=${author.id}`),
    [authorsTravel.id],
    'filters combine with AND',
  )
  t.same(await listAll(app, 'category=no-such-category'), [], 'an unknown category is an empty list')
})

t.test('search in titles and in bodies: only the matching published posts', async (t) => {
  const app = await build(t)
  const author = await registerUser(app)
  const [inTitle, inBody] = [`zeppelin${randomUUID().slice(0, 6)}`, `dirigible${randomUUID().slice(0, 6)}`]
  const titled = await createPost(app, author, {
    status: 'published',
    title: `Flying a ${inTitle}`,
    body: 'Over the lake.',
  })
  const bodied = await createPost(app, author, {
    status: 'published',
    title: 'Over the lake',
    body: `We flew a ${inBody} there.`,
  })
  await createPost(app, author, { status: 'published', title: 'Neither word', body: 'Nothing to find.' })
  const draft = await createPost(app, author, { status: 'draft', title: `A ${inTitle} draft` })

  t.same(await listAll(app, `q=${inTitle}`), [titled.id], 'a word in a title: that post, not the draft that has it too')
  t.same(await listAll(app, `q=${inBody}`), [bodied.id], 'a word in a body: that post')
  t.same(await listAll(app, `q=${inTitle}&status=draft`, author.auth), [draft.id], "search in the caller's drafts")
  t.same(await listAll(app, `q=${inTitle}+${inBody}`), [], 'every word must match')
})

t.test(
  "status=draft: an admin sees every author's drafts, a user only their own, nobody a published or scheduled post",
  async (t) => {
    const app = await build(t)
    const [author, other, admin] = [await registerUser(app), await registerUser(app), await registerAdmin(app)]
    const category = await createCategory(app, admin)
    const filed = { categoryIds: [category.id] }
    const authorsDrafts = [
      (await createPost(app, author, { status: 'draft', ...filed })).id,
      (await createPost(app, author, { status: 'draft', ...filed })).id,
    ]
    const othersDraft = (await createPost(app, other, { status: 'draft', ...filed })).id
    await createPost(app, author, { status: 'published', ...filed })
    await createPost(app, author, { status: 'scheduled', publishedAt: inDays(1), ...filed })

    t.same(
      sorted(await listAll(app, `status=draft&category=${category.id}`, admin.auth)),
      sorted([...authorsDrafts, othersDraft]),
      'admin: the drafts of all authors',
    )
    t.same(sorted(await listAll(app, 'status=draft', author.auth)), sorted(authorsDrafts), 'a user: their own drafts')
    t.same(await listAll(app, 'status=draft', other.auth), [othersDraft], 'another user: theirs')
    t.same(
      sorted(await listAll(app, `status=draft&author=${author.id}`, author.auth)),
      sorted(authorsDrafts),
      'a user naming themselves',
    )
    t.same(
      await listAll(app, `status=draft&author=${author.id}`, other.auth),
      [],
      "a user asking for someone else's drafts: an empty list",
    )
    t.same(await listAll(app, `status=draft&category=${category.id}`), [], 'anonymous: none')
  },
)

t.test(
  'status=scheduled: by publication time, own posts for users, all for admins, no drafts or published posts',
  async (t) => {
    const app = await build(t)
    const [author, other, admin] = [await registerUser(app), await registerUser(app), await registerAdmin(app)]
    const category = await createCategory(app, admin)
    const filed = { categoryIds: [category.id] }
    // Created in the opposite order of their publication times: the list follows publishedAt.
    const later = (await createPost(app, author, { status: 'scheduled', publishedAt: inDays(2), ...filed })).id
    const sooner = (await createPost(app, author, { status: 'scheduled', publishedAt: inDays(1), ...filed })).id
    const othersScheduled = (await createPost(app, other, { status: 'scheduled', publishedAt: inDays(3), ...filed })).id
    await createPost(app, author, { status: 'draft', ...filed })
    await createPost(app, author, { status: 'published', ...filed })

    t.same(
      await listAll(app, 'status=scheduled', author.auth),
      [later, sooner],
      'a user: their own, latest publication first',
    )
    t.same(
      await listAll(app, `status=scheduled&category=${category.id}`, admin.auth),
      [othersScheduled, later, sooner],
      "admin: every author's",
    )
    t.same(
      await listAll(app, `status=scheduled&author=${other.id}`, author.auth),
      [],
      "a user asking for someone else's: an empty list",
    )
    t.same(await listAll(app, `status=scheduled&category=${category.id}`), [], 'anonymous: none')
  },
)

t.test('search finds a rare word beyond the newest posts it reads in order (the search index path)', async (t) => {
  // A database of its own on PostgreSQL: these ten thousand posts would slow every other file's lists.
  // Writing and indexing them is one statement, which on a busy machine outlasts the 5 s a query
  // may take by default: this test is about what search finds, not about that bound.
  const app = await build(t, {
    DATABASE_TIMEOUT_MS: '120000',
    ...(usingPostgres ? { DATABASE_URL: await createScratchDatabase(t, 'post_search') } : {}),
  })
  const author = await registerUser(app)
  const word = `zeppelin${randomUUID().slice(0, 6)}`
  // More posts than the search reads in order before it turns to the search index, made in SQL:
  // over HTTP they would take minutes. Seven in the middle carry the word, one of them a draft;
  // thousands of newer and older ones do not, so the first page and the next (from a cursor) both
  // come from the search index.
  const [count, first] = [10_400, 5_001]
  await app.services.database.prisma.$executeRaw`
    insert into posts (id, author_id, title, body, excerpt, status, published_at, updated_at, search_vector)
    select gen_random_uuid(), ${author.id}::uuid, 'Bulk ' || i, body, 'Bulk',
           (case when i = ${first}::int + 6 then 'draft' else 'published' end)::"PostStatus", now() - make_interval(mins => i), now(),
           to_tsvector('english', 'Bulk ' || i || ' ' || body)
    from generate_series(1, ${count}::int) i,
         lateral (select case when i between ${first}::int and ${first}::int + 6 then 'About a ' || ${word} else 'About nothing' end body) b`
  await app.services.database.prisma.$executeRaw`
    insert into post_categories (post_id, category_id)
    select p.id, c.id from posts p, categories c where p.author_id = ${author.id}::uuid and c.is_default`
  const newestFirst = (where: { body?: { contains: string } }, take?: number) =>
    app.services.database.prisma.post
      .findMany({
        where: { authorId: author.id, status: 'published', ...where },
        orderBy: [{ publishedAt: 'desc' }, { id: 'desc' }],
        select: { id: true },
        take,
      })
      .then((posts) => posts.map((post) => post.id))
  const matching = await newestFirst({ body: { contains: word } })
  t.equal(matching.length, 6)
  const othersPost = await createPost(app, await registerUser(app), { status: 'published', body: `Another ${word}.` })
  t.same(await listAll(app, `q=${word}`), [othersPost.id, ...matching], 'every match, newest first, across pages')
  t.same(
    await listAll(app, `q=${word}&author=${author.id}`),
    matching,
    "with the author filter: that author's matches only",
  )
  const common = await app.inject({ method: 'GET', url: `/posts?q=bulk&author=${author.id}&limit=5` })
  t.same(
    common.json().data.map((post: { id: string }) => post.id),
    await newestFirst({}, 5),
    'a common word: the newest page',
  )
  const alone = await app.inject({ method: 'GET', url: '/posts?q=bulk&limit=5' })
  t.same(
    alone.json().data.map((post: { id: string }) => post.id),
    await newestFirst({}, 5),
    'and with no other filter (found among the newest posts read in order)',
  )
})
