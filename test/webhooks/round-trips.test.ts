// What one delivery attempt costs the database, counted in statements sent, not timed: a burst of
// events is delivered by attempts, which run beside the reads of the instance that makes them.
import t from 'tap'
import pg from 'pg'
import { registerAdmin, registerUser } from '../helpers/accounts.ts'
import { build, usingPostgres } from '../helpers/build.ts'
import { createComment, createPostRecord } from '../helpers/content.ts'
import { createScratchDatabase } from '../helpers/postgres.ts'
import { statementsOf } from '../helpers/statements.ts'
import { startReceiver } from '../helpers/webhook-receiver.ts'
import { createWebhook } from '../helpers/webhooks.ts'

/** What the attempt needs (endpoint, event, delivered already?), then its record. */
const STATEMENTS_PER_ATTEMPT = 2

t.test(
  `a delivery attempt costs ${STATEMENTS_PER_ATTEMPT} statements besides its job's`,
  { skip: usingPostgres ? false : 'counted on node-postgres, which the embedded database does not use' },
  async (t) => {
    const databaseUrl = await createScratchDatabase(t, 'attempt_round_trips')
    const server = await build(
      t,
      { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', DATABASE_URL: databaseUrl },
      { jobs: { pollingIntervalSeconds: 60 } },
    )
    const admin = await registerAdmin(server)
    const [author, reader] = [await registerUser(server), await registerUser(server, 'reader')]
    const post = await createPostRecord(server, { author })
    // The event is queued for the first endpoint only; the test makes the second one's attempt
    // itself, so no worker takes it first.
    await createWebhook(server, admin, { url: 'http://127.0.0.1:9/first', events: ['comment.created'] })
    await createComment(server, reader, post.id)
    const receiver = await startReceiver(t)
    const second = await createWebhook(server, admin, { url: receiver.url, events: ['comment.created'] })
    const client = new pg.Client({ connectionString: databaseUrl })
    await client.connect()
    t.teardown(() => client.end())
    const { rows } = await client.query<{ id: string }>('select id::text as id from webhook_events')
    t.equal(rows.length, 1)
    const job = { eventId: rows[0]!.id, endpointId: second.id }

    const attempt = await statementsOf(() => server.services.webhookDispatch.attempt(job, 1))
    t.equal(receiver.received.length, 1, 'delivered')
    t.equal(attempt.count, STATEMENTS_PER_ATTEMPT, 'a first attempt', { statements: attempt.texts })

    const again = await statementsOf(() => server.services.webhookDispatch.attempt(job, 2))
    t.equal(receiver.received.length, 1, 'not delivered twice')
    t.equal(again.count, 1, 'an attempt of an event delivered already only reads', { statements: again.texts })
  },
)
