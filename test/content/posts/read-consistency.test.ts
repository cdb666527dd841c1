// Post reads racing the writes that change a post's categories (deleteCategory, updatePost) or
// delete it: every 200 shows the post as it was at one moment, with at least one whole category,
// never `categories: []` or a null category read half before and half after a write.
// The races need concurrent transactions, which only PostgreSQL has; on PostgreSQL the test runs
// in a database of its own, so that its category deletions (which empty the post cache of every
// instance on the database) do not show in the test files running beside it.
import type { LightMyRequestResponse } from 'fastify'
import t from 'tap'
import { build, usingPostgres } from '../../helpers/build.ts'
import { registerAdmin, registerUser } from '../../helpers/accounts.ts'
import { createCategory } from '../../helpers/content.ts'
import { createScratchDatabase } from '../../helpers/postgres.ts'
import { createPost } from '../../helpers/posts.ts'

const ROUNDS = 30
/** Readers of each kind in each round, beside the writes. */
const READERS = 2

type Read =
  | 'getPost (its category deleted)'
  | 'getPost (moved to another category)'
  | 'getPost (deleted)'
  | 'listPosts (the deleted category)'
const ANSWERS: Record<Read, number[]> = {
  'getPost (its category deleted)': [200],
  'getPost (moved to another category)': [200],
  'getPost (deleted)': [200, 404],
  'listPosts (the deleted category)': [200],
}

/** What is wrong with a post a 200 showed; null when nothing is. */
function flaw(post: { categories?: unknown }): string | null {
  const categories = post.categories
  if (!Array.isArray(categories) || categories.length === 0) return `categories ${JSON.stringify(categories)}`
  const whole = (category: unknown) =>
    typeof category === 'object' &&
    category !== null &&
    ['id', 'name', 'slug'].every((key) => typeof (category as Record<string, unknown>)[key] === 'string')
  return categories.every(whole) ? null : `categories ${JSON.stringify(categories)}`
}

t.test(
  `post reads racing category and post writes, ${ROUNDS} rounds`,
  { skip: usingPostgres ? false : 'PGlite runs one transaction at a time: reads cannot interleave with writes' },
  async (t) => {
    // The cache off: every getPost reads the database.
    const app = await build(t, {
      DATABASE_URL: await createScratchDatabase(t, 'post_read_consistency'),
      POST_CACHE_MAX_ENTRIES: '0',
    })
    const [author, admin] = [await registerUser(app), await registerAdmin(app)]
    const kinds = Object.keys(ANSWERS) as Read[]
    const statuses = Object.fromEntries(kinds.map((kind) => [kind, {} as Record<string, number>])) as Record<
      Read,
      Record<string, number>
    >
    const broken: string[] = []

    async function read(kind: Read, url: string) {
      let response: LightMyRequestResponse
      try {
        response = await app.inject({ method: 'GET', url, headers: author.auth })
      } catch (error) {
        // The contract checker rejects a response that breaks the spec.
        broken.push(`${kind}: ${(error as Error).message.split('\n')[1]?.trim()}`)
        return
      }
      statuses[kind][response.statusCode] = (statuses[kind][response.statusCode] ?? 0) + 1
      if (response.statusCode !== 200) return
      const data = response.json().data
      for (const post of Array.isArray(data) ? data : [data]) {
        const problem = flaw(post)
        if (problem) broken.push(`${kind}: ${problem}`)
      }
    }

    for (let round = 0; round < ROUNDS; round++) {
      const [doomed, other] = [await createCategory(app, admin), await createCategory(app, admin)]
      const filed = { status: 'published', categoryIds: [doomed.id] }
      const [kept, moved, deleted] = [
        await createPost(app, author, filed),
        await createPost(app, author, filed),
        await createPost(app, author, filed),
      ]
      const urls: Record<Read, string> = {
        'getPost (its category deleted)': `/posts/${kept.id}`,
        'getPost (moved to another category)': `/posts/${moved.id}`,
        'getPost (deleted)': `/posts/${deleted.id}`,
        'listPosts (the deleted category)': `/posts?category=${doomed.id}`,
      }
      let writing = true
      const written = Promise.all([
        app.inject({ method: 'DELETE', url: `/categories/${doomed.id}`, headers: admin.auth }),
        app.inject({
          method: 'PATCH',
          url: `/posts/${moved.id}`,
          headers: author.auth,
          payload: { categoryIds: [other.id] },
        }),
        app.inject({ method: 'DELETE', url: `/posts/${deleted.id}`, headers: author.auth }),
      ]).finally(() => (writing = false))
      // Readers of each kind, each reading again and again for as long as the writes run.
      const readers = kinds.flatMap((kind) =>
        Array.from({ length: READERS }, async () => {
          do await read(kind, urls[kind])
          while (writing)
        }),
      )
      const [writes] = await Promise.all([written, ...readers])
      t.same(
        writes.map((response) => response.statusCode),
        [204, 200, 204],
        `round ${round}: the writes succeed`,
      )
    }

    for (const kind of kinds) {
      const unexpected = Object.keys(statuses[kind]).filter((status) => !ANSWERS[kind].includes(Number(status)))
      t.same(unexpected, [], `${kind}: answers ${ANSWERS[kind].join(' or ')}: ${JSON.stringify(statuses[kind])}`)
    }
    const brokenByKind = Object.fromEntries(
      kinds.map((kind) => [kind, broken.filter((problem) => problem.startsWith(kind)).length]),
    )
    t.same(
      broken,
      [],
      `every post read shows at least one whole category (broken reads: ${JSON.stringify(brokenByKind)})`,
    )
  },
)

// Some reads run in transactions (a search with no other filter; a torn read read again), which
// Prisma gives up on after waiting maxWait (2 s by default) for a connection: a 500. They wait as
// long as the pool does instead, like any other query.
t.test(
  'a read waiting for a pooled connection longer than 2 s still answers',
  { skip: usingPostgres ? false : 'PGlite has no connection pool' },
  async (t) => {
    const app = await build(t, { POST_CACHE_MAX_ENTRIES: '0', DATABASE_POOL_MAX: '1' })
    const post = await createPost(app, await registerUser(app), { status: 'published' })
    // The only connection, busy for 3 s (three statements of 1 s: each stays under the query timeout).
    let holding!: () => void
    const held = new Promise<void>((resolve) => (holding = resolve))
    const busy = app.services.database.prisma.$transaction(
      async (tx) => {
        holding()
        for (let i = 0; i < 3; i++) await tx.$executeRaw`select pg_sleep(1)`
      },
      { timeout: 10_000 },
    )
    await held
    const read = await app.inject({ method: 'GET', url: '/posts?q=title' })
    await busy
    t.equal(read.statusCode, 200, `answered ${read.statusCode} ${read.body.slice(0, 200)}`)
    t.ok(read.json().data.some((found: { id: string }) => found.id === post.id))
  },
)
