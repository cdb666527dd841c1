// pg-boss runs a worker of its own on the queue where its schedules fall due, and that worker does
// not await the outcome it writes: a database restart at that moment would end the process.
// startQueue takes it off, so the only worker there is ours (src/jobs/send-scheduled.ts).
import { createRequire } from 'node:module'
import { pino } from 'pino'
import t from 'tap'
import { openDatabase } from '../../src/db/database.ts'
import { SEND_SCHEDULED_QUEUE, startQueue } from '../../src/queue/queue.ts'
import { testConfig, usingPostgres } from '../helpers/build.ts'
import { eventually } from '../helpers/images.ts'
import { createScratchDatabase } from '../helpers/postgres.ts'

/** pg-boss's polling interval on that queue (its default cronWorkerIntervalSeconds), and the test worker's. */
const PG_BOSS_POLLING_INTERVAL_MS = 5000

t.test('the schedules queue is the one pg-boss names', async (t) => {
  const { QUEUES } = createRequire(import.meta.url)('pg-boss/src/timekeeper.js') as { QUEUES: { SEND_IT: string } }
  t.equal(SEND_SCHEDULED_QUEUE, QUEUES.SEND_IT)
})

t.test('once the queue has started, no worker of pg-boss takes a schedule fallen due', async (t) => {
  const config = testConfig(usingPostgres ? { DATABASE_URL: await createScratchDatabase(t, 'queue_schedules') } : {})
  const database = await openDatabase(config)
  t.teardown(database.close)
  const queue = await startQueue(database, config, pino({ level: 'silent' }))
  t.teardown(queue.stop)
  const due = { name: 'a-queue-of-the-test', data: {} }
  const id = await queue.boss.send(SEND_SCHEDULED_QUEUE, due)
  // No time is waited for: a worker of the test, polling at pg-boss's pace and started after the
  // queue (so after any worker pg-boss started on it), takes one job at once and a second one at
  // its next poll. By then a worker left on the schedules queue has polled since the job was sent.
  const control = 'schedules-test-control'
  await queue.boss.createQueue(control)
  await queue.boss.send(control, { poll: 1 })
  const taken: number[] = []
  await queue.boss.work<{ poll: number }>(
    control,
    { pollingIntervalSeconds: PG_BOSS_POLLING_INTERVAL_MS / 1000 },
    async ([job]) => {
      taken.push(job!.data.poll)
      if (job!.data.poll === 1) await queue.boss.send(control, { poll: 2 })
    },
  )
  t.ok(await eventually(async () => taken.length === 2, 60_000, 100), "the test's worker has polled a second time")
  t.same(taken, [1, 2])
  const job = await queue.boss.getJobById(SEND_SCHEDULED_QUEUE, id!)
  t.equal(job?.state, 'created', 'still waiting for a worker')
})
