// A worker that keeps up to `concurrency` jobs of a queue in hand at once, each completed or failed
// on its own as soon as it settles, and a freed slot filled from the queue. pg-boss 10's own
// workers take a batch and wait for all of it before they fetch again: one slow job (a webhook
// receiver that never answers holds its attempt for the whole timeout) would hold up every job
// fetched with it, and so every endpoint's deliveries. An idle worker looks for jobs every polling
// interval, and at once when woken.
import type PgBoss from 'pg-boss'
import type { Logger } from '../log.ts'
import { handleAlone } from './job.ts'

export interface ConcurrentWorker {
  /** Looks for jobs now, if a slot is free. */
  wake(): void
  /** Takes no more jobs, and waits for those in hand to be completed or failed. */
  stop(): Promise<void>
}

export interface ConcurrentWorkerOptions {
  concurrency: number
  pollingIntervalSeconds: number
}

export function workConcurrently<T extends object>(
  boss: PgBoss,
  queue: string,
  { concurrency, pollingIntervalSeconds }: ConcurrentWorkerOptions,
  handle: (job: PgBoss.JobWithMetadata<T>) => Promise<void>,
  onFailed: (job: PgBoss.JobWithMetadata<T>, error: unknown) => void,
  log: Logger,
): ConcurrentWorker {
  let inHand = 0
  let stopped = false
  let looking: Promise<void> | null = null
  let lookAgain = false
  let timer: NodeJS.Timeout | undefined
  const whenEmptyHanded = new Set<() => void>()

  async function settle(job: PgBoss.JobWithMetadata<T>) {
    if (await handleAlone(boss, queue, job, handle, onFailed)) await boss.complete(queue, job.id)
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
    async stop() {
      stopped = true
      clearTimeout(timer)
      await looking
      if (inHand > 0) await new Promise<void>((resolve) => whenEmptyHanded.add(resolve))
    },
  }
}
