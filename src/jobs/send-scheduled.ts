// pg-boss turns each schedule (boss.schedule, a cron expression) falling due into a job on a queue
// of its own, whose worker then inserts the job the schedule names. startQueue takes pg-boss's own
// worker off that queue (see queue.ts); this one does the same work on work-concurrently.ts, which
// awaits each job's outcome and writes it once the database is back.
import type PgBoss from 'pg-boss'
import type { Logger } from '../log.ts'
import { SEND_SCHEDULED_QUEUE } from '../queue/queue.ts'
import { workConcurrently, type ConcurrentWorker } from './work-concurrently.ts'

/** pg-boss's own polling interval for that queue (cronWorkerIntervalSeconds). */
const POLLING_INTERVAL_SECONDS = 5

export function startSendScheduledWorker(boss: PgBoss, log: Logger): ConcurrentWorker {
  return workConcurrently<PgBoss.JobInsert>(
    boss,
    SEND_SCHEDULED_QUEUE,
    { concurrency: 10, pollingIntervalSeconds: POLLING_INTERVAL_SECONDS },
    async (job) => {
      await boss.insert([job.data])
    },
    log,
  )
}
