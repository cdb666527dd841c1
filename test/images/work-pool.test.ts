// The image work pool by itself: at most `concurrency` jobs run, up to `queueMax` wait in order,
// the rest are refused at once; a failing job frees its slot like any other.
import t from 'tap'
import { makeWorkPool, OwnerBusyError, PoolBusyError } from '../../src/images/work-pool.ts'

/** A job that runs until `release()` is called; `started` tells whether it began. */
function gatedJob() {
  let release: () => void = () => {}
  const gate = new Promise<void>((resolve) => (release = resolve))
  const job = {
    started: false,
    release: () => release(),
    run: async () => {
      job.started = true
      await gate
      return 'done'
    },
  }
  return job
}

const settle = () => new Promise((resolve) => setImmediate(resolve))

t.test('two run, three wait in order, the sixth is refused; the waiting start as slots free', async (t) => {
  const pool = makeWorkPool({ concurrency: 2, queueMax: 3 })
  const jobs = Array.from({ length: 5 }, gatedJob)
  const results = jobs.map((job) => pool.run(job.run))
  await settle()
  t.same(
    jobs.map((job) => job.started),
    [true, true, false, false, false],
  )
  t.match(pool.stats(), { active: 2, queued: 3, peakActive: 2 })
  await t.rejects(
    pool.run(async () => 'never'),
    PoolBusyError,
  )
  t.equal(pool.stats().refused, 1)

  jobs[1]!.release()
  await settle()
  t.same(
    jobs.map((job) => job.started),
    [true, true, true, false, false],
    'the first in line takes the free slot',
  )
  for (const job of jobs) job.release()
  t.same(await Promise.all(results), ['done', 'done', 'done', 'done', 'done'])
  t.match(pool.stats(), { active: 0, queued: 0, peakActive: 2, completed: 5, refused: 1 })
})

t.test('a job that fails frees its slot', async (t) => {
  const pool = makeWorkPool({ concurrency: 1, queueMax: 0 })
  await t.rejects(
    pool.run(async () => Promise.reject(new Error('decoder said no'))),
    /decoder said no/,
  )
  t.equal(await pool.run(async () => 'next'), 'next')
  t.match(pool.stats(), { active: 0, completed: 2, refused: 0 })
})

t.test('an owner holds at most perOwner places, running or waiting; others are not refused for it', async (t) => {
  const pool = makeWorkPool({ concurrency: 1, queueMax: 3, perOwner: 1 })
  const [mine, theirs] = [gatedJob(), gatedJob()]
  const results = [pool.run(mine.run, 'me'), pool.run(theirs.run, 'them')]
  await settle()
  await t.rejects(
    pool.run(async () => 'never', 'me'),
    OwnerBusyError,
    'my second, while my first runs',
  )
  await t.rejects(
    pool.run(async () => 'never', 'them'),
    OwnerBusyError,
    'theirs, while their first waits',
  )
  t.match(pool.stats(), { active: 1, queued: 1, refusedOwner: 2, refused: 0 })
  mine.release()
  await settle()
  // Mine ended: I may queue again (behind theirs, which now runs).
  const again = pool.run(async () => 'mine again', 'me')
  await settle()
  t.match(pool.stats(), { active: 1, queued: 1 })
  theirs.release()
  t.same(await Promise.all([...results, again]), ['done', 'done', 'mine again'])
  t.match(pool.stats(), { active: 0, queued: 0, completed: 3 })
})
