// Post writes racing deleteCategory: never a 500, and no post is ever left without a category.
// The races need concurrent transactions, which only PostgreSQL has (PGlite runs one at a time);
// on PGlite the test still runs, as a plain check of the outcomes. On PostgreSQL it runs in a
// database of its own: its hundreds of categories and their deletions (which empty the post cache
// of every instance on the database) would otherwise show in the test files running beside it.
import type { InjectOptions, LightMyRequestResponse } from 'fastify'
import t from 'tap'
import { build, usingPostgres } from '../../helpers/build.ts'
import { registerAdmin, registerUser } from '../../helpers/accounts.ts'
import { categoryIdsOf, createCategory } from '../../helpers/content.ts'
import { createScratchDatabase } from '../../helpers/postgres.ts'
import { createPost } from '../../helpers/posts.ts'

const ROUNDS = 30
/** What races the deletion of category `c` in each round, with what it may answer. */
const WRITES = {
  createPost: [201, 422],
  'updatePost (filing the post in c)': [200, 422],
  'updatePost (re-filing a post of c in c)': [200, 422],
  'deletePost (a post filed only in c)': [204],
  'deleteCategory (the other category of a post of c)': [204],
} as const
type Write = keyof typeof WRITES

/** How many responses had each status, e.g. { 201: 20, 422: 10 }. */
function tally(responses: LightMyRequestResponse[]) {
  const counts: Record<string, number> = {}
  for (const { statusCode } of responses) counts[statusCode] = (counts[statusCode] ?? 0) + 1
  return counts
}

t.test(
  `post writes racing deleteCategory, ${ROUNDS} rounds (${usingPostgres ? 'PostgreSQL' : 'embedded'})`,
  async (t) => {
    const app = await build(
      t,
      usingPostgres ? { DATABASE_URL: await createScratchDatabase(t, 'post_category_race') } : {},
    )
    const [author, admin] = [await registerUser(app), await registerAdmin(app)]
    const postIds: string[] = []

    /** Sets up one pair, then sends its two requests at once. */
    async function race(write: Write) {
      const category = await createCategory(app, admin)
      let request: InjectOptions
      if (write === 'createPost') {
        request = { method: 'POST', url: '/posts', payload: { title: 'Race', body: 'B', categoryIds: [category.id] } }
      } else if (write === 'deleteCategory (the other category of a post of c)') {
        const other = await createCategory(app, admin)
        const post = await createPost(app, author, { categoryIds: [category.id, other.id] })
        postIds.push(post.id)
        request = { method: 'DELETE', url: `/categories/${other.id}`, headers: admin.auth }
      } else {
        const filedInC = write !== 'updatePost (filing the post in c)'
        const post = await createPost(app, author, filedInC ? { categoryIds: [category.id] } : {})
        postIds.push(post.id)
        request =
          write === 'deletePost (a post filed only in c)'
            ? { method: 'DELETE', url: `/posts/${post.id}` }
            : { method: 'PATCH', url: `/posts/${post.id}`, payload: { categoryIds: [category.id] } }
      }
      const [written, removed] = await Promise.all([
        app.inject({ headers: author.auth, ...request }),
        app.inject({ method: 'DELETE', url: `/categories/${category.id}`, headers: admin.auth }),
      ])
      if (written.statusCode === 201) postIds.push(written.json().data.id)
      return { written, removed }
    }

    const kinds = Object.keys(WRITES) as Write[]
    const outcomes = Object.fromEntries(
      kinds.map((write) => [
        write,
        { written: [] as LightMyRequestResponse[], removed: [] as LightMyRequestResponse[] },
      ]),
    ) as Record<Write, { written: LightMyRequestResponse[]; removed: LightMyRequestResponse[] }>
    // One pair of each kind at a time: enough to race, too few to exhaust the connection pool.
    for (let round = 0; round < ROUNDS; round++) {
      await Promise.all(
        kinds.map(async (write) => {
          const { written, removed } = await race(write)
          outcomes[write].written.push(written)
          outcomes[write].removed.push(removed)
        }),
      )
    }

    for (const write of kinds) {
      const expected: readonly number[] = WRITES[write]
      const { written, removed } = outcomes[write]
      t.same(
        tally(removed),
        { 204: ROUNDS },
        `${write}: every deleteCategory succeeds: ${JSON.stringify(tally(removed))}`,
      )
      const unexpected = Object.keys(tally(written)).filter((status) => !expected.includes(Number(status)))
      t.same(unexpected, [], `${write}: answers ${expected.join(' or ')}: ${JSON.stringify(tally(written))}`)
    }
    const existing = await app.services.database.prisma.post.findMany({
      where: { id: { in: postIds } },
      select: { id: true },
    })
    const uncategorized = []
    for (const { id } of existing) if ((await categoryIdsOf(app, id)).length === 0) uncategorized.push(id)
    t.same(uncategorized, [], `every post keeps at least one category (${existing.length} posts)`)
  },
)
