// What a background job is to the app: a queue, created while starting instances take turns, and
// a worker, started once the services it calls exist. Each job's file exports one; jobs/index.ts lists them.
import type PgBoss from 'pg-boss'
import type { Logger } from '../log.ts'
import type { CleanupLimits } from '../auth/account-cleanup.ts'
import type { Mailer } from '../mail/mailer.ts'
import type { Services } from '../services.ts'

export interface JobsOptions {
  pollingIntervalSeconds?: number
  retryDelaySeconds?: number
  /** Batches of the account tables' clean-up (tests make them small). */
  accountCleanup?: Partial<CleanupLimits>
}

/** What a worker may use. */
export interface JobContext {
  boss: PgBoss
  services: Services
  mailer: Mailer
  log: Logger
  options: JobsOptions
}

export interface Job {
  queue: string
  /** Creates the queue (and its schedule); runs under the migration lock, see buildApp. */
  create(boss: PgBoss, options: JobsOptions): Promise<void>
  /** Starts the worker. */
  start(context: JobContext): Promise<unknown>
}
