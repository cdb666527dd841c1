// An endpoint deleted while its attempt is being recorded: the attempt goes with it, and recording
// it does not fail (a failure would fail the job and log that no attempt was made, after one was).
// The race is made certain: a trigger holds the attempt's insert, after its own check that the
// endpoint exists, on an advisory lock this test holds; the endpoint is deleted meanwhile, then
// the lock let go, and the insert's foreign key finds the endpoint gone.
import { randomUUID } from 'node:crypto'
import pg from 'pg'
import t from 'tap'
import { registerAdmin } from '../helpers/accounts.ts'
import { build, usingPostgres } from '../helpers/build.ts'
import { eventually } from '../helpers/images.ts'
import { createScratchDatabase } from '../helpers/postgres.ts'
import { createWebhook } from '../helpers/webhooks.ts'
import { makeWebhookStore } from '../../src/webhooks/webhook-store.ts'

const LOCK = 7_200_020

t.test(
  'an attempt whose endpoint is deleted as it is recorded is dropped without an error',
  // The embedded database is one connection: no delete can come between a statement's check and its end.
  { skip: usingPostgres ? false : 'needs PostgreSQL: two sessions at once' },
  async (t) => {
    const databaseUrl = await createScratchDatabase(t, 'webhook_attempt_race')
    const app = await build(t, { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', DATABASE_URL: databaseUrl })
    const { prisma } = app.services.database
    const admin = await registerAdmin(app)
    const hook = await createWebhook(app, admin, { url: 'http://127.0.0.1:9/hook', events: ['post.published'] })
    await prisma.$executeRawUnsafe(`
      create function hold_attempt() returns trigger language plpgsql as $$
      begin
        perform pg_advisory_lock(${LOCK});
        perform pg_advisory_unlock(${LOCK});
        return new;
      end $$`)
    await prisma.$executeRawUnsafe(
      'create trigger hold_attempt before insert on webhook_attempts for each row execute function hold_attempt()',
    )
    const holder = new pg.Client({ connectionString: databaseUrl })
    await holder.connect()
    t.teardown(() => holder.end())
    await holder.query('select pg_advisory_lock($1)', [LOCK])
    const recorded = makeWebhookStore(prisma).recordAttempt({
      endpointId: hook.id,
      eventId: randomUUID(),
      eventType: 'post.published',
      attempt: 1,
      outcome: 'delivered',
      responseStatus: 204,
      durationMs: 3,
      error: null,
    })
    const held = async () =>
      (
        await holder.query(
          `select 1 from pg_stat_activity where wait_event_type = 'Lock' and query like '%insert into webhook_attempts%'`,
        )
      ).rowCount === 1
    t.ok(await eventually(held), 'the insert waits in its trigger, past its own check')
    const removed = await app.inject({ method: 'DELETE', url: `/webhooks/${hook.id}`, headers: admin.auth })
    t.equal(removed.statusCode, 204)
    await holder.query('select pg_advisory_unlock($1)', [LOCK])
    await t.resolves(recorded, 'recording the attempt did not fail')
    t.equal(await prisma.webhookAttempt.count(), 0, 'no attempt recorded')
  },
)
