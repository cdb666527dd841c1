// Every list page has a byte budget (LIST_PAGE_MAX_BYTES) beside its item limit: a page of large
// items holds fewer than `limit`, at least one, and its cursor continues with the first item it
// left out, so paging to the end sees every item once. Each test writes under an author (or a
// word) of its own, so the assertions hold on a shared PostgreSQL too.
import { randomUUID } from 'node:crypto'
import t, { type Test } from 'tap'
import { build } from '../../helpers/build.ts'
import { registerUser } from '../../helpers/accounts.ts'
import { createComment } from '../../helpers/content.ts'
import { createPost } from '../../helpers/posts.ts'

type App = Awaited<ReturnType<typeof build>>
const BUDGET = 16 * 1024

interface Page {
  ids: string[]
  /** The page's `data` as the bytes of JSON the budget counts. */
  bytes: number
  nextCursor: string | null
}

async function readPage(app: App, url: string, headers: Record<string, string> = {}): Promise<Page> {
  const response = await app.inject({ method: 'GET', url, headers })
  if (response.statusCode !== 200) throw new Error(`${url}: ${response.statusCode} ${response.body}`)
  const body: { data: { id: string }[]; meta: { page: { nextCursor: string | null } } } = response.json()
  return {
    ids: body.data.map((item) => item.id),
    bytes: Buffer.byteLength(JSON.stringify(body.data)),
    nextCursor: body.meta.page.nextCursor,
  }
}

/** Pages through `path` (which has a query string) to the end. */
async function pageThrough(app: App, path: string, headers: Record<string, string> = {}) {
  const pages: Page[] = []
  let cursor: string | null = null
  do {
    const page = await readPage(app, `${path}${cursor ? `&cursor=${cursor}` : ''}`, headers)
    pages.push(page)
    cursor = page.nextCursor
    if (pages.length > 100) throw new Error('no end in sight')
  } while (cursor)
  return pages
}

/** Every page within the budget or of one item, never empty while items remain. */
function checkPages(t: Test, pages: Page[]) {
  for (const [index, page] of pages.entries()) {
    t.ok(page.ids.length >= 1, `page ${index} holds an item`)
    if (page.ids.length > 1) t.ok(page.bytes <= BUDGET, `page ${index}: ${page.bytes} bytes within ${BUDGET}`)
  }
}

/** A body of `length` characters, different for each post. */
const bodyOf = (length: number, index: number) => `Post ${index} ${'x'.repeat(length)}`

t.test('listPosts: pages within the byte budget, every post once, in order, to the end', async (t) => {
  const app = await build(t, { LIST_PAGE_MAX_BYTES: String(BUDGET) })
  const author = await registerUser(app)
  const word = `w${randomUUID().replaceAll('-', '')}`
  // Sizes that fill pages unevenly, and one post larger than the budget on its own.
  const lengths = [1500, 4000, 500, 3000, 3000, 12_000, 200, 2500, 3500, 1000, 4500, 800]
  const created: string[] = []
  for (const [index, length] of lengths.entries())
    created.push(
      (
        await createPost(app, author, {
          status: 'published',
          title: `T${index}`,
          body: `${word} ${bodyOf(length, index)}`,
        })
      ).id,
    )
  const newestFirst = created.toReversed()
  for (const [name, path, headers] of [
    ['by author', `/posts?author=${author.id}&limit=100`, {}],
    ['by search alone', `/posts?q=${word}&limit=100`, {}],
  ] as const) {
    const pages = await pageThrough(app, path, headers)
    checkPages(t, pages)
    t.same(
      pages.flatMap((page) => page.ids),
      newestFirst,
      `${name}: every post once, newest first`,
    )
    t.ok(pages.length >= 4, `${name}: ${pages.length} pages of at most 100 posts`)
    t.ok(
      pages.some((page) => page.ids.length === 1 && page.bytes > BUDGET),
      `${name}: the post larger than the budget has a page of its own`,
    )
  }
  // Drafts, seen by their author, are paged the same way.
  for (const [index, length] of lengths.slice(0, 6).entries())
    await createPost(app, author, { title: `D${index}`, body: bodyOf(length, index) })
  const drafts = await pageThrough(app, `/posts?author=${author.id}&status=draft&limit=100`, author.auth)
  checkPages(t, drafts)
  t.equal(new Set(drafts.flatMap((page) => page.ids)).size, 6, 'drafts: each once')
  t.ok(drafts.length >= 2, 'drafts: more than one page')
})

t.test('listComments: pages within the byte budget, every comment once, to the end', async (t) => {
  const app = await build(t, { LIST_PAGE_MAX_BYTES: String(BUDGET) })
  const author = await registerUser(app)
  const post = await createPost(app, author, { status: 'published' })
  const created: string[] = []
  for (let index = 0; index < 12; index++)
    created.push((await createComment(app, author, post.id, { body: `Comment ${index} ${'y'.repeat(3000)}` })).id)
  const pages = await pageThrough(app, `/posts/${post.id}/comments?limit=100`)
  checkPages(t, pages)
  t.same(
    pages.flatMap((page) => page.ids).toSorted(),
    created.toSorted(),
    'every comment once (in the order listComments gives)',
  )
  t.ok(pages.length >= 3, `${pages.length} pages of at most 100 comments`)
})
