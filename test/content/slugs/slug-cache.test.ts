// The slug map behind getPostBySlug, on its own (the app's tests are in post-cache/by-slug.test.ts):
// bounded by entries, forgets a post's slugs when the post changes, and never keeps what a lookup
// found when a write came between the lookup and its answer.
import t from 'tap'
import { makeSlugCache } from '../../../src/content/slugs/slug-cache.ts'

/** A database of slugs whose answers the test releases one at a time. */
function slowDatabase(rows: Record<string, string>) {
  const waiting: (() => void)[] = []
  let lookups = 0
  return {
    resolve: async (slug: string) => {
      lookups++
      await new Promise<void>((release) => waiting.push(release))
      return rows[slug] === undefined ? null : { id: rows[slug]!, current: slug }
    },
    releaseAll: () => waiting.splice(0).forEach((release) => release()),
    lookups: () => lookups,
  }
}

const options = { maxEntries: 100, ttlMs: 60_000 }

t.test('a lookup that a write overtook is answered, not kept', async (t) => {
  const database = slowDatabase({ 'old-slug': 'post-1' })
  const slugs = makeSlugCache(database.resolve, options)
  const pending = slugs.get('old-slug')
  slugs.invalidate({ postId: 'post-1' }) // the write commits while the lookup is out
  database.releaseAll()
  t.same(await pending, { id: 'post-1', current: 'old-slug' })
  const again = slugs.get('old-slug')
  database.releaseAll()
  await again
  t.equal(database.lookups(), 2, 'asked of the database again')
  t.same(await slugs.get('old-slug'), { id: 'post-1' }, 'and kept from then on')
  t.equal(database.lookups(), 2)
})

t.test('a change to a post forgets its slugs, and only its; other writes forget none', async (t) => {
  const rows = { a: 'post-1', b: 'post-1', c: 'post-2' }
  const slugs = makeSlugCache(async (slug) => ({ id: rows[slug as keyof typeof rows], current: slug }), options)
  for (const slug of Object.keys(rows)) await slugs.get(slug)
  t.equal(slugs.stats().entries, 3)
  slugs.invalidate({ authorId: 'someone' })
  slugs.invalidate({ categoryId: 'some-category' })
  slugs.invalidate({ createdPostId: 'post-3' })
  t.equal(slugs.stats().entries, 3, 'an author, a category or a new post: nothing forgotten')
  slugs.invalidate({ postId: 'post-1' })
  t.equal(slugs.stats().entries, 1, "post-1's two slugs forgotten")
  t.same(await slugs.get('c'), { id: 'post-2' }, "post-2's kept")
  slugs.clear()
  t.equal(slugs.stats().entries, 0)
})

t.test('bounded by entries; unknown slugs take no room', async (t) => {
  const slugs = makeSlugCache(async (slug) => (slug.startsWith('none') ? null : { id: `id-${slug}`, current: slug }), {
    maxEntries: 50,
    ttlMs: 60_000,
  })
  for (let n = 0; n < 500; n++) await slugs.get(`slug-${n}`)
  for (let n = 0; n < 500; n++) await slugs.get(`none-${n}`)
  t.equal(slugs.stats().entries, 50)
  // Evicted slugs leave nothing behind for their posts: invalidating them all finds nothing to do.
  for (let n = 0; n < 450; n++) slugs.invalidate({ postId: `id-slug-${n}` })
  t.equal(slugs.stats().entries, 50, 'the 50 most recent are still there')
  for (let n = 450; n < 500; n++) slugs.invalidate({ postId: `id-slug-${n}` })
  t.equal(slugs.stats().entries, 0)
})
