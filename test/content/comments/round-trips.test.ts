// What one comment costs the database, counted in statements sent (round trips), not timed: a
// comment is the write a busy post takes most of, and each statement costs the server a socket
// write, the driver's and Prisma's work.
import t from 'tap'
import { registerAdmin, registerUser } from '../../helpers/accounts.ts'
import { build, usingPostgres } from '../../helpers/build.ts'
import { createComment, createPostRecord } from '../../helpers/content.ts'
import { createScratchDatabase } from '../../helpers/postgres.ts'
import { statementsOf } from '../../helpers/statements.ts'
import { createWebhook } from '../../helpers/webhooks.ts'

/**
 * The session check, the write budget's upsert (src/http/limits/write-budget.ts), BEGIN, the
 * post's locked read, the duplicate check (issue 35: one indexed read), the insert (with the
 * count), the endpoints listening, COMMIT, the lists' generation with the NOTIFY to the other
 * instances (one statement: src/db/list-generation.ts). With the test config's
 * COMMENT_MODERATION=off and no flood interval; the flood check adds two (the author's lock, their
 * latest comment), first-time moderation one (whether they have a published comment).
 */
const STATEMENTS_PER_COMMENT = 9
/** The event with its notification, and one delivery job per endpoint. */
const STATEMENTS_PER_ENDPOINT_EVENT = 2

t.test(
  `a comment costs ${STATEMENTS_PER_COMMENT} statements, and ${STATEMENTS_PER_ENDPOINT_EVENT} more with an endpoint listening`,
  { skip: usingPostgres ? false : 'counted on node-postgres, which the embedded database does not use' },
  async (t) => {
    const server = await build(
      t,
      { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', DATABASE_URL: await createScratchDatabase(t, 'comment_round_trips') },
      // Workers poll once a minute, so polls are rare; the delivery a commit wakes (its NOTIFY) runs
      // in the LISTEN connection's async context, outside the request's count.
      { jobs: { pollingIntervalSeconds: 60 } },
    )
    const [author, reader] = [await registerUser(server), await registerUser(server, 'reader')]
    const post = await createPostRecord(server, { author })
    await createComment(server, reader, post.id) // the first request of a kind warms caches

    const alone = await statementsOf(() => createComment(server, reader, post.id))
    t.equal(alone.count, STATEMENTS_PER_COMMENT, 'no endpoint', { statements: alone.texts })

    await createWebhook(server, await registerAdmin(server), {
      url: 'http://127.0.0.1:9/hook',
      events: ['comment.created'],
    })
    const withEndpoint = await statementsOf(() => createComment(server, reader, post.id))
    t.equal(withEndpoint.count, STATEMENTS_PER_COMMENT + STATEMENTS_PER_ENDPOINT_EVENT, 'one endpoint', {
      statements: withEndpoint.texts,
    })
  },
)
