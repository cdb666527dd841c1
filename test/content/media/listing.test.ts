// listMedia: the caller's library newest first, paged by cursor; admins page everyone's or one
// owner's; another user naming an owner is refused.
import t from 'tap'
import { build } from '../../helpers/build.ts'
import { registerAdmin, registerUser } from '../../helpers/accounts.ts'
import { createMedia } from '../../helpers/media.ts'

/** Every item of the list, page by page of `limit`; the pages' sizes too. */
async function pageThrough(app: Awaited<ReturnType<typeof build>>, headers: Record<string, string>, query: string) {
  const ids: string[] = []
  const sizes: number[] = []
  let cursor: string | null = null
  do {
    const url: string = `/media?limit=2${query}${cursor === null ? '' : `&cursor=${cursor}`}`
    const response = await app.inject({ method: 'GET', url, headers })
    if (response.statusCode !== 200) throw new Error(`${url}: ${response.statusCode} ${response.body}`)
    const body = response.json()
    ids.push(...body.data.map((item: { id: string }) => item.id))
    sizes.push(body.data.length)
    cursor = body.meta.page.nextCursor
  } while (cursor !== null)
  return { ids, sizes }
}

t.test('the caller’s own items, newest first, every one once across pages', async (t) => {
  const app = await build(t)
  const alice = await registerUser(app, 'alice')
  const bob = await registerUser(app, 'bob')
  const mine = []
  for (const colour of ['#110000', '#220000', '#330000', '#440000', '#550000'])
    mine.push((await createMedia(app, alice.auth, { width: 100, colour })).id)
  await createMedia(app, bob.auth, { width: 100, colour: '#000066' })

  const { ids, sizes } = await pageThrough(app, alice.auth, '')
  t.same(ids, [...mine].reverse(), 'newest first, only hers')
  t.same(sizes, [2, 2, 1])
  const own = await app.inject({ method: 'GET', url: `/media?owner=${alice.id}`, headers: alice.auth })
  t.equal(own.statusCode, 200, 'naming herself is allowed')
  const other = await app.inject({ method: 'GET', url: `/media?owner=${bob.id}`, headers: alice.auth })
  t.same([other.statusCode, other.json().error.code], [403, 'FORBIDDEN'], 'naming another is not')
  const bad = await app.inject({ method: 'GET', url: '/media?cursor=bm9wZQ', headers: alice.auth })
  t.same([bad.statusCode, bad.json().error.details[0].path], [400, '/query/cursor'], 'a forged cursor is a 400')
})

t.test('an admin lists everyone’s items, or one owner’s', async (t) => {
  const app = await build(t)
  const admin = await registerAdmin(app)
  const alice = await registerUser(app, 'alice')
  const bob = await registerUser(app, 'bob')
  const a1 = (await createMedia(app, alice.auth, { width: 100, colour: '#010101' })).id
  const b1 = (await createMedia(app, bob.auth, { width: 100, colour: '#020202' })).id
  const a2 = (await createMedia(app, alice.auth, { width: 100, colour: '#030303' })).id

  const everyone = await pageThrough(app, admin.auth, '')
  t.same(
    everyone.ids.filter((id) => [a1, b1, a2].includes(id)),
    [a2, b1, a1],
    'everyone’s, newest first (other files’ items may be there on PostgreSQL)',
  )
  t.same((await pageThrough(app, admin.auth, `&owner=${alice.id}`)).ids, [a2, a1], 'alice’s only')
  t.same((await pageThrough(app, admin.auth, `&owner=${admin.id}`)).ids, [], 'none of the admin’s own')
})
