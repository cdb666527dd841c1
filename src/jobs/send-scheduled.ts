// pg-boss turns each schedule (boss.schedule, a cron expression) falling due into a job on a queue
// of its own, whose worker then inserts the job the schedule names. pg-boss runs that worker with
// its own work(), which does not wait for the completion it writes (see work-concurrently.ts): a
// database restarting while a scheduled job is inserted would end the process. Ours replaces it and
// does what pg-boss's does.
import type PgBoss from 'pg-boss'
import type { Logger } from '../log.ts'
import { workConcurrently, type ConcurrentWorker } from './work-concurrently.ts'

/** pg-boss 10's queue of schedules fallen due (its timekeeper.js); a test checks the name still holds. */
export const SEND_SCHEDULED_QUEUE = '__pgboss__send-it'

/** pg-boss's own polling interval for that queue (cronWorkerIntervalSeconds). */
const POLLING_INTERVAL_SECONDS = 5

/** Takes pg-boss's worker off its schedules' queue and starts ours on it; call once the queue has started. */
export async function startSendScheduledWorker(boss: PgBoss, log: Logger): Promise<ConcurrentWorker> {
  await boss.offWork(SEND_SCHEDULED_QUEUE)
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
