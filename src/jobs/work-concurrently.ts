// The worker of every queue: it keeps up to `concurrency` jobs in hand at once, each completed or
// failed on its own as soon as it settles, and a freed slot filled from the queue. An idle worker
// looks for jobs every polling interval, and at once when woken.
//
// Not pg-boss 10's own work(), for two reasons. It does not wait for the completion or failure it
// writes when a job ends: with the database gone at that moment, the write's rejection is unhandled
// and Node ends the process. And it takes a batch and waits for all of it before it fetches again:
// one slow job (a webhook receiver that never answers holds its attempt for the whole timeout)
// would hold up every job fetched with it.
import type PgBoss from 'pg-boss'
import type { Logger } from '../log.ts'

export interface ConcurrentWorker {
  /** Looks for jobs now, if a slot is free. */
  wake(): void
  /**
   * Takes no more jobs, and waits up to `timeoutMs` for those in hand to be completed or failed.
   * Those whose handler is still running then are failed, so that pg-boss retries them after their
   * retry delay rather than once they expire; such a run may still end before the process does (it
   * then writes no outcome), and the job runs twice. A job whose handler has ended is not failed.
   */
  stop(timeoutMs: number): Promise<void>
}

export interface ConcurrentWorkerOptions {
  concurrency: number
  pollingIntervalSeconds: number
}

/** Time kept between giving up on a job's outcome and the job's expiry (and the fetch's own latency). */
const EXPIRY_MARGIN_MS = 2000

/**
 * A fetched job's expiry, in milliseconds. pg-boss's fetch returns it (its own work() uses it to
 * bound a job) though its types leave it out; it is a numeric, which node-postgres gives as a string.
 */
function expiryMs(job: object): number {
  const seconds = Number((job as { expireInSeconds?: unknown }).expireInSeconds)
  return Number.isFinite(seconds) ? seconds * 1000 : 0
}

/** Whether the job is still active in the run that `job` (as fetched) started. */
async function stillThisRun<T extends object>(boss: PgBoss, queue: string, job: PgBoss.JobWithMetadata<T>) {
  const current = await boss.getJobById<T>(queue, job.id)
  return current?.state === 'active' && current.startedOn.getTime() === job.startedOn.getTime()
}

/**
 * Writes a job's completion or failure, trying again while it cannot (the database restarting):
 * a job whose outcome is lost stays active until it expires and then runs again, sending a mail
 * twice. Gives up when the worker stops, or before the job expires: pg-boss may then hand the
 * job to another worker, whose run a late write would end.
 */
async function recordOutcome<T extends object>(
  { boss, queue, log, stopped }: { boss: PgBoss; queue: string; log: Logger; stopped: () => boolean },
  job: PgBoss.JobWithMetadata<T>,
  expiresAt: number,
  write: () => Promise<unknown>,
) {
  for (let delayMs = 250, first = true; ; delayMs = Math.min(delayMs * 2, 5000), first = false) {
    try {
      // A write whose answer was lost may have landed all the same: the job may then be waiting
      // for its retry, or in another worker's hands, whose run a second failure would end.
      if (!first && !(await stillThisRun(boss, queue, job))) return
      await write()
      return
    } catch (error) {
      if (stopped() || Date.now() + delayMs > expiresAt - EXPIRY_MARGIN_MS) throw error
      if (delayMs === 250)
        log.warn({ err: error, queue, jobId: job.id }, "job's outcome not recorded; trying again until it expires")
      await new Promise((resolve) => setTimeout(resolve, delayMs))
    }
  }
}

/** Fails the jobs whose handler still runs at shutdown, so that pg-boss retries them after their delay. */
async function failRunning(boss: PgBoss, queue: string, ids: string[], log: Logger) {
  log.warn({ queue, jobIds: ids }, 'jobs still running at shutdown: failed, so they are retried')
  await Promise.all(
    ids.map((id) =>
      boss
        .fail(queue, id, { message: 'shut down while active' })
        .catch((error: unknown) => log.warn({ err: error, queue, jobId: id }, 'job not failed; it will expire')),
    ),
  )
}

export function workConcurrently<T extends object>(
  boss: PgBoss,
  queue: string,
  { concurrency, pollingIntervalSeconds }: ConcurrentWorkerOptions,
  handle: (job: PgBoss.JobWithMetadata<T>) => Promise<void>,
  log: Logger,
  /** Hears why a job failed; by default, a warning in the log. */
  onFailed: (job: PgBoss.JobWithMetadata<T>, error: unknown) => void = (job, error) =>
    log.warn({ err: error, queue, jobId: job.id }, 'job failed; it will be retried'),
): ConcurrentWorker {
  /** Jobs taken and not yet settled: running, or having their outcome written. */
  let inHand = 0
  /** Jobs whose handler has not ended yet. */
  const running = new Set<PgBoss.JobWithMetadata<T>>()
  /** Jobs failed by stop() while still running: pg-boss may hand them out again, so their run writes nothing. */
  const abandoned = new Set<PgBoss.JobWithMetadata<T>>()
  let stopped = false
  let looking: Promise<void> | null = null
  let lookAgain = false
  let timer: NodeJS.Timeout | undefined
  const whenEmptyHanded = new Set<() => void>()

  /** Runs the job, then completes it, or fails it so that pg-boss retries it. */
  async function settle(job: PgBoss.JobWithMetadata<T>) {
    const expiresAt = Date.now() + expiryMs(job)
    let outcome: () => Promise<unknown>
    running.add(job)
    try {
      await handle(job)
      outcome = () => boss.complete(queue, job.id)
    } catch (error) {
      onFailed(job, error)
      const reason = { message: error instanceof Error ? error.message : String(error) }
      outcome = () => boss.fail(queue, job.id, reason)
    } finally {
      running.delete(job)
    }
    if (!abandoned.has(job)) await recordOutcome({ boss, queue, log, stopped: () => stopped }, job, expiresAt, outcome)
  }

  function take(job: PgBoss.JobWithMetadata<T>) {
    inHand++
    settle(job)
      .catch((error: unknown) =>
        // The job stays active until it expires, then pg-boss retries it.
        log.warn({ err: error, queue, jobId: job.id }, 'job neither completed nor failed; it will expire'),
      )
      .finally(() => {
        inHand--
        if (inHand === 0) for (const resolve of whenEmptyHanded) resolve()
        // Refilled by halves: a fetch per settled job would be a query per job.
        if (inHand <= concurrency / 2) wake()
      })
  }

  async function lookForJobs() {
    while (!stopped && inHand < concurrency) {
      const jobs = await boss.fetch<T>(queue, { batchSize: concurrency - inHand, includeMetadata: true })
      if (jobs === null || jobs.length === 0) return
      for (const job of jobs) take(job)
    }
  }

  function wake() {
    if (stopped) return
    if (looking !== null) {
      lookAgain = true
      return
    }
    clearTimeout(timer)
    looking = lookForJobs()
      .catch((error: unknown) => log.warn({ err: error, queue }, 'cannot fetch jobs; looking again later'))
      .finally(() => {
        looking = null
        if (lookAgain) {
          lookAgain = false
          wake()
        } else if (!stopped) timer = setTimeout(wake, pollingIntervalSeconds * 1000)
      })
  }

  wake()
  return {
    wake,
    async stop(timeoutMs) {
      // The time given counts from now, the fetch under way (if any) included.
      const deadline = Date.now() + timeoutMs
      stopped = true
      clearTimeout(timer)
      await looking
      if (inHand === 0) return
      // Says why the shutdown is waiting (and lets a test see that it is).
      log.info(
        { queue, jobIds: [...running].map((job) => job.id), inHand, timeoutMs },
        'waiting for the jobs in hand before shutting down',
      )
      let timeout: NodeJS.Timeout | undefined
      await new Promise<void>((resolve) => {
        whenEmptyHanded.add(resolve)
        timeout = setTimeout(resolve, Math.max(0, deadline - Date.now()))
      })
      clearTimeout(timeout)
      // Jobs only having their outcome written are left to it: failing them could undo a completion.
      if (running.size === 0) return
      for (const job of running) abandoned.add(job)
      await failRunning(
        boss,
        queue,
        [...running].map((job) => job.id),
        log,
      )
    },
  }
}
