// What a background job is to the app: a queue, created while starting instances take turns, and
// a worker, started once the services it calls exist. Each job's file exports one; jobs/index.ts lists them.
import type PgBoss from 'pg-boss'
import type { Logger } from '../log.ts'
import type { AccountCleanup, CleanupLimits } from '../auth/account-cleanup.ts'
import type { Config } from '../config.ts'
import type { PostService } from '../content/posts.ts'
import type { ThumbnailService } from '../content/thumbnails.ts'
import type { Mailer } from '../mail/mailer.ts'

export interface JobsOptions {
  pollingIntervalSeconds?: number
  retryDelaySeconds?: number
  /** Batches of the account tables' clean-up (tests make them small). */
  accountCleanup?: Partial<CleanupLimits>
}

/** The service functions workers run: the composition root (services.ts) hands them over. */
export interface JobServices {
  config: Config
  posts: Pick<PostService, 'publishIfDue'>
  thumbnails: Pick<ThumbnailService, 'sweepUnusedImages'>
  accountCleanup: AccountCleanup
}

/** What a worker may use. */
export interface JobContext {
  boss: PgBoss
  services: JobServices
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
