// A post's HTML, rendered once when its body is written and stored beside it; reads never render.
//
// Rendering runs on a worker thread: a body of 100 000 characters can take a quarter of a second
// to parse and sanitize (tables of thousands of columns, quotes nested twenty deep over and over:
// see test/content/html/pathological.test.ts), and on the event loop that would stall every other
// request for as long. The thread starts with the first write and ends after a while without one,
// so an idle instance holds neither it nor the libraries it loads (markdown.ts).
import { Piscina } from 'piscina'
import { ApiError, RETRY_AFTER_SECONDS } from '../../errors/api-error.ts'
import { HtmlTooLargeError, type RenderResult } from './limits.ts'

export { HTML_MAX_LENGTH, HtmlTooLargeError } from './limits.ts'

/**
 * Bodies waiting for a rendering thread, past which a write is refused (503) rather than queued:
 * an ordinary body renders in a millisecond, a hostile one of 100 000 characters in a few hundred,
 * so a full queue is tens of seconds of work at worst and never reached by ordinary traffic.
 */
const RENDER_QUEUE_MAX = 64

const renderQueueFull = () =>
  new ApiError(
    503,
    'SERVICE_UNAVAILABLE',
    'Too many posts are being written at once; try again shortly.',
    [{ path: 'server', message: 'Too many posts wait to be rendered.' }],
    { 'retry-after': String(RETRY_AFTER_SECONDS) },
  )

/**
 * Bodies of one user rendering or waiting at once, past which their next write is refused (429):
 * one user's flood of the costliest bodies must not fill the queue everyone's writes share (an
 * eighth of it at most), while a client writing a few posts in parallel is never refused.
 */
export const RENDERS_PER_USER = 8

const ownRendersTaken = () =>
  new ApiError(
    429,
    'RATE_LIMITED',
    `${RENDERS_PER_USER} posts of yours are being rendered already; try again when they are done.`,
    [{ path: 'body', message: 'Too many of your posts wait to be rendered.' }],
    { 'retry-after': String(RETRY_AFTER_SECONDS) },
  )

const escapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }

/**
 * The body shown as written, for a post written before HTML was rendered whose body renders past
 * HTML_MAX_LENGTH (none can be written now): escaped, so safe as it is, and at most 6 × 100 000 +
 * 11 characters long, within the bound.
 */
export const plainTextHtml = (body: string) => `<pre>${body.replace(/[&<>"]/g, (char) => escapes[char]!)}</pre>`

export interface HtmlRenderer {
  /**
   * The body as sanitized HTML; HtmlTooLargeError past HTML_MAX_LENGTH, a 429 ApiError past
   * RENDERS_PER_USER of `userId`'s at once (none when no user asks: the backfill), a 503 ApiError
   * when too many wait.
   */
  render(body: string, userId?: string): Promise<string>
  /** Lets renderings already queued finish; safe to call twice. */
  close(): Promise<void>
}

export function makeHtmlRenderer(): HtmlRenderer {
  // Compiled to JavaScript for `npm start`, run from TypeScript by tsx in development and tests.
  const worker = import.meta.url.endsWith('.ts') ? './render-worker.ts' : './render-worker.js'
  const pool = new Piscina<{ body: string }, RenderResult>({
    filename: new URL(worker, import.meta.url).href,
    // One thread: an ordinary body renders in about a millisecond, so one keeps up with any write
    // rate the database does, and the worst body's transient memory (about 100 MB, for a table of
    // 12 500 columns: test/content/html/pathological.test.ts) is held once, not once per core.
    maxThreads: 1,
    minThreads: 0,
    idleTimeout: 30_000,
    maxQueue: RENDER_QUEUE_MAX,
  })
  let closing: Promise<void> | undefined
  /** Renders in progress or waiting, by the user they are for; a user with none has no entry. */
  const rendersOf = new Map<string, number>()
  return {
    async render(body, userId) {
      const own = userId === undefined ? 0 : (rendersOf.get(userId) ?? 0)
      if (own >= RENDERS_PER_USER) throw ownRendersTaken()
      if (pool.queueSize >= RENDER_QUEUE_MAX) throw renderQueueFull()
      if (userId !== undefined) rendersOf.set(userId, own + 1)
      try {
        const result = await pool.run({ body })
        if ('tooLarge' in result) throw new HtmlTooLargeError()
        return result.html
      } finally {
        if (userId !== undefined) {
          const left = rendersOf.get(userId)! - 1
          if (left === 0) rendersOf.delete(userId)
          else rendersOf.set(userId, left)
        }
      }
    },
    close: () => (closing ??= pool.close()),
  }
}
