// What creating and editing a post cost the database, counted in statements sent (round trips),
// not timed: each statement costs the server a socket write, the driver's and Prisma's work. The
// bare write peer of `npm run bench -- writes` (scripts/bench/write-peer.ts) runs these statements;
// a change here is a change there.
import t from 'tap'
import { registerAdmin, registerUser } from '../../helpers/accounts.ts'
import { build, usingPostgres } from '../../helpers/build.ts'
import { createCategory } from '../../helpers/content.ts'
import { createPost } from '../../helpers/posts.ts'
import { createScratchDatabase } from '../../helpers/postgres.ts'
import { statementsOf } from '../../helpers/statements.ts'

/**
 * The session check and the write budget's upsert; BEGIN, the statement timeout, the categories
 * locked, the post's insert and its filings', the author's slug lock, their drafts' slugs checked,
 * the slug claimed, the search vector, the post read back (one statement), the newest revision's
 * number, the revision's insert, its pruning, the endpoints listening, COMMIT; the lists'
 * generation with the NOTIFY to the other instances (one statement). Published, in two categories, no media in the
 * body (there is no post_media row to clear on a new post).
 */
const STATEMENTS_PER_CREATE = 18
/**
 * The session check and the budget; the post's author and status (before rendering); BEGIN, the
 * statement timeout, the post locked and read (one statement), its update, the search vector,
 * the post read again, the revision's number, insert and pruning, the endpoints listening, COMMIT;
 * the lists' generation with the NOTIFY. A new body without media on a post that shows none.
 */
const STATEMENTS_PER_EDIT = 16

t.test(
  `a post costs ${STATEMENTS_PER_CREATE} statements, an edit of its body ${STATEMENTS_PER_EDIT}`,
  { skip: usingPostgres ? false : 'counted on node-postgres, which the embedded database does not use' },
  async (t) => {
    const server = await build(
      t,
      { DATABASE_URL: await createScratchDatabase(t, 'post_round_trips') },
      { jobs: { pollingIntervalSeconds: 60 } },
    )
    const admin = await registerAdmin(server)
    const categoryIds = [(await createCategory(server, admin)).id, (await createCategory(server, admin)).id]
    const author = await registerUser(server)
    const body = (label: string) => `${label}.\n\nA paragraph of prose, long enough to be one.`
    const create = (label: string) =>
      createPost(server, author, { title: `A post ${label}`, body: body(label), status: 'published', categoryIds })
    const edit = async (id: string, label: string) => {
      const response = await server.inject({
        method: 'PATCH',
        url: `/posts/${id}`,
        headers: author.auth,
        payload: { body: body(label) },
      })
      t.equal(response.statusCode, 200, response.body)
    }
    // The first request of a kind warms caches.
    const post = await create('first')
    await edit(post.id, 'first edit')

    const created = await statementsOf(() => create('second'))
    t.equal(created.count, STATEMENTS_PER_CREATE, 'createPost', { statements: created.texts })
    const edited = await statementsOf(() => edit(post.id, 'second edit'))
    t.equal(edited.count, STATEMENTS_PER_EDIT, 'updatePost', { statements: edited.texts })
  },
)
