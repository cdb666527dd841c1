// Two instances on one PostgreSQL: each kind of write through one makes the other forget the pages
// its list cache held, because writers NOTIFY and every instance LISTENs. The other's next read
// shows the write in any case (the lists' generation, src/db/list-generation.ts, is checked on
// every read), so what is checked here is that the pages leave the reader's memory with no read
// through the reader at all: only the notification does that. And an instance does not empty its
// cache again on hearing its own messages.
import t from 'tap'
import { build, usingPostgres } from '../../../helpers/build.ts'
import { registerAdmin, registerUser } from '../../../helpers/accounts.ts'
import { createCategory, createComment } from '../../../helpers/content.ts'
import { eventually } from '../../../helpers/images.ts'
import { heardEverythingSentBefore, toldOfOwnWrite } from '../../../helpers/notifications.ts'
import { createScratchDatabase } from '../../../helpers/postgres.ts'
import { createPost } from '../../../helpers/posts.ts'

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

/**
 * Whether the reader forgets every page it holds without being read, as the notification of a
 * write shown on all of them makes it do. The deadline, far below the cache's TTL (300 s), only
 * turns a notification that never comes into a failure.
 */
const forgetsItsPages = (reader: App) =>
  eventually(async () => reader.services.listCache.stats().entries === 0, 15_000, 20)

t.test('each kind of write through one instance shows in the lists of the other', { skip }, async (t) => {
  const url = await createScratchDatabase(t, 'list_fleet')
  const writer = await build(t, { DATABASE_URL: url })
  const reader = await build(t, { DATABASE_URL: url })
  const [author, admin] = [await registerUser(writer), await registerAdmin(writer)]
  const category = await createCategory(writer, admin)
  const front = '/posts?limit=5'
  const byCategory = `/posts?category=${category.slug}`

  /** Warms `path` on the reader, writes through the writer, then checks the reader's memory and next read. */
  async function step(name: string, path: string, write: () => Promise<unknown>, check: (items: Item[]) => boolean) {
    // The reader listens, and has applied every message sent so far (its first connection clears
    // everything): from here on, only the write's notification can make it forget the page.
    if (!(await heardEverythingSentBefore(reader))) throw new Error('the reader does not hear notifications')
    await warm(reader, path)
    await write()
    t.ok(await forgetsItsPages(reader), `${name}: the reader forgets the pages it held, unread`)
    t.ok(check(await list(reader, path)), `${name}: its next read shows it`)
  }

  let post = { id: '' }
  await step(
    'a new post',
    front,
    async () => (post = await createPost(writer, author, { status: 'published', categoryIds: [category.id] })),
    (items) => items[0]?.id === post.id,
  )
  await step(
    'an edit',
    front,
    () => writer.inject({ method: 'PATCH', url: `/posts/${post.id}`, headers: author.auth, payload: { title: 'Ed' } }),
    (items) => items[0]?.title === 'Ed',
  )
  await step(
    'a comment',
    front,
    () => createComment(writer, author, post.id),
    (items) => items[0]?.commentCount === 1,
  )
  await step(
    "the author's name",
    front,
    () => writer.inject({ method: 'PATCH', url: '/me', headers: author.auth, payload: { name: 'Renamed' } }),
    (items) => items[0]?.author.name === 'Renamed',
  )
  await step(
    'a category renamed',
    byCategory,
    () =>
      writer.inject({
        method: 'PATCH',
        url: `/categories/${category.id}`,
        headers: admin.auth,
        payload: { name: 'R' },
      }),
    (items) => items[0]?.categories[0]?.name === 'R',
  )
  await step(
    'a post deleted',
    front,
    () => writer.inject({ method: 'DELETE', url: `/posts/${post.id}`, headers: author.auth }),
    (items) => items.length === 0,
  )

  // The writer's own messages come back to it a moment later: they must not empty its cache again.
  // Counted, from before the write: once by the write itself, and not again once its message is back.
  const { id, told } = await toldOfOwnWrite(t, writer, writer.services.listCache, () =>
    createPost(writer, author, { status: 'published' }),
  )
  t.same(told, [{ createdPostId: id }], 'its list cache was told of the write once, by the write itself')
})
