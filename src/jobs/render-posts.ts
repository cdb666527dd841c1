// Renders the html of posts that have none (src/content/html/backfill.ts): after the upgrade that
// added html, every post written before it; during a rolling upgrade, those the instances still
// on the release before write. A SQL migration cannot run markdown-it, hence a job.
//
// Every instance asks for a run when it starts, and a schedule asks every five minutes (a run that
// finds nothing costs one probe of a small table's index). The `stately` queue holds at most one
// run waiting and one running for the whole fleet, so a fleet starting together renders each post
// once; and a run is safe to repeat anyway (a post is stored only while it has no html). A run is
// bounded (batches); when it leaves posts behind, it asks for another run at once.
import type PgBoss from 'pg-boss'
import type { Logger } from '../log.ts'
import type { HtmlBackfill, HtmlBackfillLimits } from '../content/html/backfill.ts'
import { ensureQueue, type Job } from './job.ts'
import { workConcurrently, type ConcurrentWorker } from './work-concurrently.ts'

export const RENDER_POSTS_QUEUE = 'render-posts'

const DEFAULT_LIMITS: HtmlBackfillLimits = { batchSize: 100, maxBatches: 20 }

export async function createRenderPostsQueue(boss: PgBoss): Promise<void> {
  await ensureQueue(boss, {
    name: RENDER_POSTS_QUEUE,
    policy: 'stately',
    retryLimit: 5,
    retryDelay: 30,
    retryBackoff: true,
  })
  await boss.schedule(RENDER_POSTS_QUEUE, '*/5 * * * *')
  // Refused (null) when a run is waiting already: that one will do.
  await boss.send(RENDER_POSTS_QUEUE, {})
}

export function startRenderPostsWorker(
  boss: PgBoss,
  renderPending: HtmlBackfill['renderPending'],
  log: Logger,
  options: { pollingIntervalSeconds?: number; htmlBackfill?: Partial<HtmlBackfillLimits> } = {},
): ConcurrentWorker {
  const limits = { ...DEFAULT_LIMITS, ...options.htmlBackfill }
  return workConcurrently(
    boss,
    RENDER_POSTS_QUEUE,
    { pollingIntervalSeconds: options.pollingIntervalSeconds ?? 2, concurrency: 1 },
    async () => {
      const result = await renderPending(limits)
      if (result.rendered > 0) log.info(result, 'html rendered for posts that had none')
      if (result.more) await boss.send(RENDER_POSTS_QUEUE, {})
    },
    log,
  )
}

export const renderPostsJob: Job = {
  queue: RENDER_POSTS_QUEUE,
  create: createRenderPostsQueue,
  start: ({ boss, services, log, options }) =>
    startRenderPostsWorker(boss, services.postHtml.renderPending, log, options),
}
