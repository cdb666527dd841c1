// Hourly, the account tables' clean-up (src/auth/account-cleanup.ts): expired rate-limit counters,
// long-ended sessions and their refresh tokens, expired account and API tokens. Once per hour for the whole fleet, not once per
// instance: pg-boss keeps one schedule row per queue (each instance's schedule() call updates that
// row), one instance per cron tick claims the tick (pg-boss 10: the timekeeper's trySetCronTime on
// its version row) and the job it forwards is a singleton per minute; the `stately` queue holds at
// most one run waiting and one running. A run is bounded (batches); when it leaves more behind, it
// asks for another run at once rather than deleting without bound.
import type PgBoss from 'pg-boss'
import type { Logger } from '../log.ts'
import type { CleanupLimits, CleanupResult } from '../auth/account-cleanup.ts'
import { ensureQueue, type Job } from './job.ts'
import { workConcurrently, type ConcurrentWorker } from './work-concurrently.ts'

export const CLEAN_UP_ACCOUNTS_QUEUE = 'clean-up-accounts'

const DEFAULT_LIMITS: CleanupLimits = { batchSize: 1000, maxBatches: 20 }

export async function createCleanUpAccountsQueue(boss: PgBoss): Promise<void> {
  await ensureQueue(boss, {
    name: CLEAN_UP_ACCOUNTS_QUEUE,
    policy: 'stately',
    retryLimit: 3,
    retryDelay: 60,
    retryBackoff: true,
  })
  await boss.schedule(CLEAN_UP_ACCOUNTS_QUEUE, '23 * * * *')
}

export function startCleanUpAccountsWorker(
  boss: PgBoss,
  cleanUp: (limits: CleanupLimits) => Promise<CleanupResult>,
  log: Logger,
  options: { pollingIntervalSeconds?: number; accountCleanup?: Partial<CleanupLimits> } = {},
): ConcurrentWorker {
  const limits = { ...DEFAULT_LIMITS, ...options.accountCleanup }
  return workConcurrently(
    boss,
    CLEAN_UP_ACCOUNTS_QUEUE,
    { pollingIntervalSeconds: options.pollingIntervalSeconds ?? 2, concurrency: 1 },
    async () => {
      const result = await cleanUp(limits)
      if (result.counters + result.refreshTokens + result.sessions + result.accountTokens + result.apiTokens > 0)
        log.info(result, 'expired rate-limit counters, ended sessions and expired account and API tokens deleted')
      if (result.more) await boss.send(CLEAN_UP_ACCOUNTS_QUEUE, {})
    },
    log,
  )
}

export const cleanUpAccountsJob: Job = {
  queue: CLEAN_UP_ACCOUNTS_QUEUE,
  create: createCleanUpAccountsQueue,
  start: ({ boss, services, log, options }) => startCleanUpAccountsWorker(boss, services.accountCleanup, log, options),
}
