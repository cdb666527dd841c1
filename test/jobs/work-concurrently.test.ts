// A job's outcome written again after a write whose answer was lost (a connection reset just after
// the commit, as when the database restarts) must not land on a later run of the job: by then the
// first write has put it back in the queue, and another worker may be running it.
import { pino } from 'pino'
import type PgBoss from 'pg-boss'
import t from 'tap'
import { openDatabase } from '../../src/db/database.ts'
import { workConcurrently } from '../../src/jobs/work-concurrently.ts'
import { startQueue } from '../../src/queue/queue.ts'
import { testConfig, usingPostgres } from '../helpers/build.ts'
import { eventually } from '../helpers/images.ts'
import { createScratchDatabase } from '../helpers/postgres.ts'

const QUEUE = 'outcome-lost'

t.test('a failure written, its answer lost: the retry leaves the next run alone', async (t) => {
  const config = testConfig(usingPostgres ? { DATABASE_URL: await createScratchDatabase(t, 'outcome_lost') } : {})
  const database = await openDatabase(config)
  t.teardown(database.close)
  const log = pino({ level: 'silent' })
  const queue = await startQueue(database, config, log)
  t.teardown(queue.stop)
  const { boss } = queue
  await boss.createQueue(QUEUE, { name: QUEUE, retryDelay: 0, retryLimit: 5 })
  const id = (await boss.send(QUEUE, {}))!

  // pg-boss as the worker sees it: its first failure is written, then another worker takes the
  // job again, and only then does the answer fail to arrive.
  let nextRun: PgBoss.Job[] = []
  let failures = 0
  const lostAnswer = new Proxy(boss, {
    get(target, property) {
      if (property !== 'fail') return Reflect.get(target, property)
      return async (...args: Parameters<PgBoss['fail']>) => {
        const result = await target.fail(...args)
        if (++failures > 1) return result
        nextRun = await target.fetch(QUEUE)
        throw new Error('Connection terminated unexpectedly')
      }
    },
  })
  const worker = workConcurrently(
    lostAnswer,
    QUEUE,
    { concurrency: 1, pollingIntervalSeconds: 60 },
    async () => {
      throw new Error('the mail server refused it')
    },
    log,
    () => {},
  )
  t.ok(await eventually(async () => nextRun.length > 0), 'the job was failed, and taken again by another worker')
  await worker.stop(10_000)

  t.same(
    nextRun.map((job) => job.id),
    [id],
    'the job taken again is this one',
  )
  const job = await boss.getJobById(QUEUE, id)
  t.equal(job?.state, 'active', 'the next run is still active')
  t.equal(failures, 1, 'failed once only')
})
