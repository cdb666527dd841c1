// Two instances on one PostgreSQL: each kind of write through one is seen in the lists read
// through the other, whose list cache held the old page, because writers NOTIFY and every instance
// LISTENs; and an instance does not empty its cache again on hearing its own messages.
import t from 'tap'
import { build, usingPostgres } from '../../helpers/build.ts'
import { registerAdmin, registerUser } from '../../helpers/accounts.ts'
import { createCategory, createComment } from '../../helpers/content.ts'
import { eventually } from '../../helpers/images.ts'
import { createScratchDatabase } from '../../helpers/postgres.ts'
import { createPost } from '../../helpers/posts.ts'

const skip = usingPostgres ? false : 'needs PostgreSQL: instances share a database only there (set DATABASE_URL)'

type App = Awaited<ReturnType<typeof build>>
type Item = {
  id: string
  title: string
  commentCount: number
  author: { name: string }
  categories: { name: string }[]
}

const list = async (app: App, url: string) => (await app.inject({ method: 'GET', url })).json().data as Item[]

/** Reads the page through `reader` until its cache serves it (the hit counted), then returns it. */
async function warm(reader: App, url: string) {
  let items: Item[] = []
  const served = await eventually(async () => {
    items = await list(reader, url)
    const hits = reader.services.listCache.stats().hits
    items = await list(reader, url)
    return reader.services.listCache.stats().hits === hits + 1
  })
  if (!served) throw new Error(`${url} was not served from the cache`)
  return items
}

/** Whether the reader shows what `check` looks for within 5 s: well within the cache's TTL. */
const seen = (reader: App, url: string, check: (items: Item[]) => boolean) =>
  eventually(async () => check(await list(reader, url)), 5_000, 20)

t.test('each kind of write through one instance shows in the lists of the other', { skip }, async (t) => {
  const url = await createScratchDatabase(t, 'list_fleet')
  const writer = await build(t, { DATABASE_URL: url })
  const reader = await build(t, { DATABASE_URL: url })
  const [author, admin] = [await registerUser(writer), await registerAdmin(writer)]
  const category = await createCategory(writer, admin)
  const front = '/posts?limit=5'
  const byCategory = `/posts?category=${category.slug}`

  await warm(reader, front)
  const post = await createPost(writer, author, { status: 'published', categoryIds: [category.id] })
  t.ok(await seen(reader, front, (items) => items[0]?.id === post.id), 'a new post')

  await warm(reader, front)
  await writer.inject({ method: 'PATCH', url: `/posts/${post.id}`, headers: author.auth, payload: { title: 'Ed' } })
  t.ok(await seen(reader, front, (items) => items[0]?.title === 'Ed'), 'an edit')

  await warm(reader, front)
  await createComment(writer, author, post.id)
  t.ok(await seen(reader, front, (items) => items[0]?.commentCount === 1), 'a comment')

  await warm(reader, front)
  await writer.inject({ method: 'PATCH', url: '/me', headers: author.auth, payload: { name: 'Renamed' } })
  t.ok(await seen(reader, front, (items) => items[0]?.author.name === 'Renamed'), "the author's name")

  await warm(reader, byCategory)
  await writer.inject({
    method: 'PATCH',
    url: `/categories/${category.id}`,
    headers: admin.auth,
    payload: { name: 'R' },
  })
  t.ok(await seen(reader, byCategory, (items) => items[0]?.categories[0]?.name === 'R'), 'a category renamed')

  await warm(reader, front)
  await writer.inject({ method: 'DELETE', url: `/posts/${post.id}`, headers: author.auth })
  t.ok(await seen(reader, front, (items) => items.length === 0), 'a post deleted')

  // The writer's own messages come back to it a moment later: they must not empty its cache again.
  await createPost(writer, author, { status: 'published' })
  await list(writer, front)
  const hits = writer.services.listCache.stats().hits
  // Long enough for the notification to come back (a shorter wait only makes this check weaker).
  await new Promise((resolve) => setTimeout(resolve, 300))
  await list(writer, front)
  t.equal(writer.services.listCache.stats().hits, hits + 1, 'the page read after the write stays cached')
})
