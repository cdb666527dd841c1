// Renders the posts that have no html yet: those written before html existed, and any an instance
// of the release before writes during a rolling upgrade (the migration post_html queues them).
// Run by the render-posts job (src/jobs/render-posts.ts), one run at a time for the whole fleet;
// safe to run again and again: a post is rendered only while it has no html, and stored only if
// its body is still the one rendered.
import type { Logger } from '../../log.ts'
import type { PostChanges } from '../posts/post-changes.ts'
import type { PostStore } from '../posts/post-store.ts'
import { HtmlTooLargeError, plainTextHtml, type HtmlRenderer } from './post-html.ts'

export interface HtmlBackfillLimits {
  /** Posts read and rendered per batch. */
  batchSize: number
  /** Batches per run: a run is bounded, and asks for another when it leaves posts behind. */
  maxBatches: number
}

export interface HtmlBackfillResult {
  rendered: number
  /** Posts were left for another run. */
  more: boolean
}

export function makeHtmlBackfill(options: {
  store: Pick<PostStore, 'pendingHtml' | 'saveHtml'>
  renderer: Pick<HtmlRenderer, 'render'>
  changes: Pick<PostChanges, 'changedEverything'>
  log: Logger
}) {
  const { store, renderer, changes, log } = options

  /**
   * A body written before the bound on HTML (none can be written now) is shown as plain text. Its
   * images render plain: the backfill looks up no media (post_media is written by post writes only).
   */
  async function htmlOf(id: string, body: string): Promise<string> {
    try {
      return (await renderer.render(body)).html
    } catch (error) {
      if (!(error instanceof HtmlTooLargeError)) throw error
      log.warn({ postId: id }, 'the body renders past the bound on HTML: stored as plain text')
      return plainTextHtml(body)
    }
  }

  return {
    async renderPending(limits: HtmlBackfillLimits): Promise<HtmlBackfillResult> {
      let rendered = 0
      let after: string | null = null
      let more = true
      try {
        for (let batch = 0; batch < limits.maxBatches && more; batch++) {
          const posts = await store.pendingHtml(after, limits.batchSize)
          for (const post of posts) {
            if (await store.saveHtml(post.id, post.body, await htmlOf(post.id, post.body))) rendered++
          }
          more = posts.length === limits.batchSize
          after = posts.at(-1)?.id ?? after
        }
      } finally {
        // Every instance may have served these posts (and lists holding them) without html.
        if (rendered > 0) await changes.changedEverything()
      }
      return { rendered, more }
    },
  }
}

export type HtmlBackfill = ReturnType<typeof makeHtmlBackfill>
