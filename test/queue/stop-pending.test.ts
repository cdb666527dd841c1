// Stopping the queue while one of its queries waits for a connection: pg's pool abandons waiters
// when it ends, so a worker whose poll was waiting would never finish, and pg-boss's own wait for
// its stopped workers would keep the process alive for ever (a test file that never exits).
import t from 'tap'
import { pino } from 'pino'
import { openDatabase } from '../../src/db/database.ts'
import { startQueue } from '../../src/queue/queue.ts'
import { testConfig, usingPostgres } from '../helpers/build.ts'
import { createScratchDatabase } from '../helpers/postgres.ts'

/** The queue's pool size on PostgreSQL (src/queue/queue.ts). */
const QUEUE_POOL_MAX = 4

t.test(
  'a query waiting for one of the queue’s connections settles once the queue stops',
  { skip: usingPostgres ? false : 'the embedded database has one connection and no pool to wait for' },
  async (t) => {
    const config = testConfig({
      DATABASE_URL: await createScratchDatabase(t, 'queue_stop'),
      DATABASE_TIMEOUT_MS: '2000',
    })
    const database = await openDatabase(config)
    t.teardown(database.close)
    const queue = await startQueue(database, config, pino({ level: 'silent' }))
    const db = queue.boss.getDb()
    const busy = Array.from({ length: QUEUE_POOL_MAX }, () => db.executeSql('select pg_sleep(1)', []))
    const waiting = db.executeSql('select 1', []).then(
      () => 'answered',
      () => 'refused',
    )
    await queue.stop()
    await Promise.allSettled(busy)
    // Not a speed bound: a generous ceiling that turns "never" into a failure this test can report.
    const ceiling = new Promise((resolve) => setTimeout(resolve, 20_000, 'still waiting').unref())
    t.not(await Promise.race([waiting, ceiling]), 'still waiting', 'the waiting query was answered or refused')
  },
)
