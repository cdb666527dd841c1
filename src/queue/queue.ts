// pg-boss, on the same database as the data: its own pool on Postgres, PGlite's single
// connection (through `db`) on the embedded database. Workers are registered by their features.
import PgBoss from 'pg-boss'
import type { Logger } from '../log.ts'
import type { Config } from '../config.ts'
import { closeTimeoutMs } from '../config/listeners.ts'
import type { Database } from '../db/database.ts'

/**
 * pg-boss 10's queue of schedules fallen due (its timekeeper.js): each due schedule becomes a job
 * there, whose worker inserts the job the schedule names. test/queue/schedules.test.ts checks the name.
 */
export const SEND_SCHEDULED_QUEUE = '__pgboss__send-it'

export interface Queue {
  boss: PgBoss
  /** A query through pg-boss's own connection, used by GET /health. */
  ping(): Promise<void>
  /** Lets running jobs finish (up to the shutdown timeout), then stops polling. */
  stop(): Promise<void>
}

export async function startQueue(
  database: Database,
  config: Pick<Config, 'databaseUrl' | 'databaseTimeoutMs' | 'shutdownTimeoutMs' | 'drainPeriodMs'>,
  log: Logger,
): Promise<Queue> {
  const boss = new PgBoss({
    ...(database.queueExecutor === null
      ? {
          connectionString: config.databaseUrl!,
          max: 4,
          application_name: 'blog-api-queue',
          // pg's pool abandons the queries waiting for a connection when it ends (on stop): without
          // a bound they never settle, a worker polling then never stops, and pg-boss waits for
          // it on a timer for ever, keeping the process alive. Also fails fast, as the app's pool.
          connectionTimeoutMillis: config.databaseTimeoutMs,
        }
      : { db: database.queueExecutor }),
    schema: 'pgboss',
  })
  // pg-boss reports failures of its background loops here; without a listener they would crash the process.
  // Only message and code: a pg error carries its client, whose connection parameters may hold the
  // database password. While the database is down this fires on every poll; it recovers by itself.
  boss.on('error', (error: Error & { code?: string }) =>
    log.error({ err: { message: error.message, code: error.code } }, 'queue error'),
  )
  await boss.start()
  // boss.start() put a worker of pg-boss's own on that queue, which does not await the completion
  // or failure it writes: with the database gone at that moment, the rejection is unhandled and
  // ends the process. Off at once; startJobs runs ours there instead (jobs/send-scheduled.ts).
  await boss.offWork(SEND_SCHEDULED_QUEUE)
  let stopping: Promise<void> | undefined
  return {
    boss,
    async ping() {
      await boss.isInstalled()
    },
    // Idempotent: a test or a failed start-up may stop the queue before onClose does.
    stop: () => (stopping ??= boss.stop({ graceful: true, wait: true, timeout: closeTimeoutMs(config) })),
  }
}
