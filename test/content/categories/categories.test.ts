// Categories over HTTP: who may write them, slug rules, paging by slug, and deletion that never
// leaves a post without a category.
import { randomUUID } from 'node:crypto'
import t from 'tap'
import { build } from '../../helpers/build.ts'
import { registerAdmin, registerUser } from '../../helpers/accounts.ts'
import { categoryIdsOf, createCategory, createPostRecord, uniqueSlug } from '../../helpers/content.ts'

type App = Awaited<ReturnType<typeof build>>
const UNKNOWN_ID = '0192f7b1-5e6f-7a80-9b1c-d2e3f4a5b6c7'

const defaultCategoryId = async (app: App) =>
  (await app.services.database.prisma.category.findFirstOrThrow({ where: { isDefault: true }, select: { id: true } }))
    .id

t.test('rights: anyone lists, only admins write (anonymous 401, a user 403)', async (t) => {
  const app = await build(t)
  const [user, admin] = [await registerUser(app), await registerAdmin(app)]
  const callers = { anonymous: {}, user: user.auth, admin: admin.auth }
  const expected = {
    listCategories: { anonymous: 200, user: 200, admin: 200 },
    createCategory: { anonymous: 401, user: 403, admin: 201 },
    updateCategory: { anonymous: 401, user: 403, admin: 200 },
    deleteCategory: { anonymous: 401, user: 403, admin: 204 },
  }
  for (const [caller, headers] of Object.entries(callers) as [keyof typeof callers, Record<string, string>][]) {
    // A fresh category per cell: a successful delete must not decide the next cell.
    const target = await createCategory(app, admin)
    const requests = {
      listCategories: { method: 'GET', url: '/categories' },
      createCategory: { method: 'POST', url: '/categories', payload: { name: 'Rights', slug: uniqueSlug('rights') } },
      updateCategory: { method: 'PATCH', url: `/categories/${target.id}`, payload: { name: 'Renamed' } },
      deleteCategory: { method: 'DELETE', url: `/categories/${target.id}` },
    } as const
    for (const [operation, request] of Object.entries(requests) as [
      keyof typeof requests,
      (typeof requests)[keyof typeof requests],
    ][]) {
      const response = await app.inject({ ...request, headers })
      t.equal(response.statusCode, expected[operation][caller], `${operation} by ${caller}`)
      if (response.statusCode === 403) t.equal(response.json().error.code, 'FORBIDDEN')
    }
  }
})

t.test('createCategory: slugs given or derived, unique, and fields nobody may set', async (t) => {
  const app = await build(t)
  const admin = await registerAdmin(app)
  const create = (payload: Record<string, unknown>) =>
    app.inject({ method: 'POST', url: '/categories', headers: admin.auth, payload })
  const suffix = randomUUID().slice(0, 8)

  const derived = await create({ name: `  Café Straße & Œuvres ${suffix}  ` })
  t.equal(derived.statusCode, 201)
  t.match(derived.json().data, {
    name: `Café Straße & Œuvres ${suffix}`,
    slug: `cafe-strasse-oeuvres-${suffix}`,
    isDefault: false,
  })

  const given = await create({ name: 'Photography & Film', slug: `photo-${suffix}` })
  t.equal(given.statusCode, 201)
  t.equal(given.json().data.slug, `photo-${suffix}`)

  const taken = await create({ name: 'Another', slug: `photo-${suffix}` })
  t.equal(taken.statusCode, 409)
  t.match(taken.json().error, { code: 'CATEGORY_SLUG_TAKEN', details: [{ path: '/body/slug' }] })
  const takenDerived = await create({ name: `Photo ${suffix}` })
  t.equal(takenDerived.statusCode, 409, 'a derived slug that is taken is a 409 too')
  t.equal(takenDerived.json().error.code, 'CATEGORY_SLUG_TAKEN')

  const noSlug = await create({ name: '日本語 !!!' })
  t.equal(noSlug.statusCode, 400, 'a name that yields no slug')
  t.match(noSlug.json().error.details, [{ path: '/body/slug' }])
  const blank = await create({ name: '   ', slug: uniqueSlug() })
  t.equal(blank.statusCode, 400)
  t.match(blank.json().error.details, [{ path: '/body/name' }])
  const badSlug = await create({ name: 'Bad', slug: 'Not A Slug' })
  t.equal(badSlug.statusCode, 400)
  t.match(badSlug.json().error.details, [{ path: '/body/slug' }])
  for (const field of ['isDefault', 'id', 'createdAt']) {
    const response = await create({ name: 'Extra', slug: uniqueSlug(), [field]: true })
    t.equal(response.statusCode, 400, `${field} is refused`)
    t.match(response.json().error.details, [{ path: `/body/${field}`, code: 'additionalProperties' }])
  }
})

t.test('updateCategory: renaming keeps the slug; slug changes are checked', async (t) => {
  const app = await build(t)
  const admin = await registerAdmin(app)
  const patch = (id: string, payload: Record<string, unknown>) =>
    app.inject({ method: 'PATCH', url: `/categories/${id}`, headers: admin.auth, payload })
  const category = await createCategory(app, admin, { name: 'Photography' })
  const other = await createCategory(app, admin)

  const renamed = await patch(category.id, { name: 'Photography & Film' })
  t.equal(renamed.statusCode, 200)
  t.match(renamed.json().data, { id: category.id, name: 'Photography & Film', slug: category.slug })

  const newSlug = uniqueSlug('film')
  const reslugged = await patch(category.id, { slug: newSlug })
  t.equal(reslugged.statusCode, 200)
  t.match(reslugged.json().data, { name: 'Photography & Film', slug: newSlug })
  t.equal((await patch(category.id, { slug: newSlug })).statusCode, 200, 'its own slug is not "taken"')

  const taken = await patch(category.id, { slug: other.slug })
  t.equal(taken.statusCode, 409)
  t.equal(taken.json().error.code, 'CATEGORY_SLUG_TAKEN')
  const missing = await patch(UNKNOWN_ID, { name: 'Nobody' })
  t.equal(missing.statusCode, 404)
  t.equal(missing.json().error.code, 'CATEGORY_NOT_FOUND')
  t.equal((await patch(category.id, {})).statusCode, 400, 'an empty patch')
  const forbidden = await patch(category.id, { isDefault: true })
  t.equal(forbidden.statusCode, 400)
  t.match(forbidden.json().error.details, [{ path: '/body/isDefault' }])
  t.equal((await patch('not-a-uuid', { name: 'X' })).statusCode, 400, 'a malformed id')
})

t.test('deleteCategory: posts move to the default category when left with none; the default stays', async (t) => {
  const app = await build(t)
  const [admin, author] = [await registerAdmin(app), await registerUser(app)]
  const defaultId = await defaultCategoryId(app)
  const [doomed, kept] = [await createCategory(app, admin), await createCategory(app, admin)]
  const onlyThere = await createPostRecord(app, { author: author, categoryIds: [doomed.id] })
  const alsoElsewhere = await createPostRecord(app, { author: author, categoryIds: [doomed.id, kept.id] })
  const draftOnlyThere = await createPostRecord(app, { author: author, status: 'draft', categoryIds: [doomed.id] })

  const deleted = await app.inject({ method: 'DELETE', url: `/categories/${doomed.id}`, headers: admin.auth })
  t.equal(deleted.statusCode, 204)
  t.equal(deleted.body, '')
  t.same(await categoryIdsOf(app, onlyThere.id), [defaultId], 'left with none: moved to the default')
  t.same(await categoryIdsOf(app, draftOnlyThere.id), [defaultId], 'drafts too')
  t.same(await categoryIdsOf(app, alsoElsewhere.id), [kept.id], 'filed elsewhere too: just removed')
  t.equal(await app.services.database.prisma.category.count({ where: { id: doomed.id } }), 0)

  const again = await app.inject({ method: 'DELETE', url: `/categories/${doomed.id}`, headers: admin.auth })
  t.equal(again.statusCode, 404)
  t.equal(again.json().error.code, 'CATEGORY_NOT_FOUND')
  const isDefault = await app.inject({ method: 'DELETE', url: `/categories/${defaultId}`, headers: admin.auth })
  t.equal(isDefault.statusCode, 409)
  t.equal(isDefault.json().error.code, 'CATEGORY_IS_DEFAULT')
})

t.test(
  'listCategories: ordered by slug, each category exactly once across pages; forged cursors are 400',
  async (t) => {
    const app = await build(t)
    const admin = await registerAdmin(app)
    const mine = new Set<string>()
    for (let i = 0; i < 5; i++) mine.add((await createCategory(app, admin)).slug)

    const seen: string[] = []
    const seenIds: string[] = []
    let cursor: string | null = null
    do {
      const response = await app.inject({
        method: 'GET',
        url: `/categories?limit=7${cursor ? `&cursor=${cursor}` : ''}`,
      })
      t.equal(response.statusCode, 200)
      const body: {
        data: { id: string; slug: string }[]
        meta: { page: { limit: number; nextCursor: string | null } }
      } = response.json()
      t.ok(body.data.length <= 7)
      t.equal(body.meta.page.limit, 7)
      for (const category of body.data) {
        seen.push(category.slug)
        seenIds.push(category.id)
      }
      cursor = body.meta.page.nextCursor
    } while (cursor !== null)
    t.equal(new Set(seen).size, seen.length, 'no category twice')
    t.ok(
      [...mine].every((slug) => seen.includes(slug)),
      'every category once',
    )
    t.ok(
      seen.every((slug, i) => i === 0 || seen[i - 1]! < slug),
      'ordered by slug',
    )
    t.ok(seenIds.includes(await defaultCategoryId(app)), 'the default category is listed')

    for (const forged of [Buffer.from('Not A Slug').toString('base64url'), 'x']) {
      const response = await app.inject({ method: 'GET', url: `/categories?cursor=${forged}` })
      t.equal(response.statusCode, 400)
      t.match(response.json().error.details, [{ path: '/query/cursor' }])
    }
    t.equal((await app.inject({ method: 'GET', url: '/categories?limit=0' })).statusCode, 400)
  },
)
