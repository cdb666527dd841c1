// A post's HTML, rendered once when its body is written and stored beside it; reads never render.
//
// Rendering runs on worker threads: a body of 100 000 characters can take one to four seconds to
// parse and sanitize (a table of 25 000 rows: 200 000 tokens and 100 000 tags, most of the time in
// allocating them and collecting the garbage; no one rule of markdown-it or sanitize-html is slow),
// and on the event loop that would stall every other request for as long. A thread starts with
// the first write and ends after a while without one, so an idle instance holds neither it nor the
// libraries it loads (markdown.ts).
import { makeWorkerPool } from '../../worker-pool.ts'
import { ApiError, RETRY_AFTER_SECONDS } from '../../errors/api-error.ts'
import { FairQueue } from './fair-queue.ts'
import { HtmlTooLargeError, type RenderResult } from './limits.ts'
import { renderCost } from './render-cost.ts'
import type { BodyMedia } from './body-media.ts'

export { HTML_MAX_LENGTH, HtmlTooLargeError } from './limits.ts'

/**
 * Places in each lane's queue (see makeHtmlRenderer). An ordinary body renders in a millisecond, a
 * hostile one of 100 000 characters in one to four seconds; when the places are taken, a newcomer
 * pushes out the newest body of whoever holds the most (fair-queue.ts), so a full queue refuses
 * only those holding as many places as anyone.
 */
export const RENDER_QUEUE_PLACES = 64

/**
 * Bodies that cost more than this to render (render-cost.ts: their length, and their tables'
 * cells) render in the large lane, the others in the small one: the small lane's costliest render
 * is about a tenth of the large lane's, and a one-line post never waits behind a 100 000-character
 * table, nor behind a short table a thousand columns wide.
 */
export const LARGE_RENDER_COST = 10_000

/**
 * What the large lane's thread adds to the process's nice value (Linux): at 10 more it gets about a tenth
 * of a core that the thread serving requests also wants, and all of one that nothing else wants.
 */
const LARGE_LANE_NICE = 10

/**
 * Bodies of one user rendering or waiting at once, past which their next write is refused (429):
 * with fair turns a flood delays only the flooder, but each body waiting holds a request and its
 * memory; a client writing a few posts in parallel is never refused.
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

/** Every place is held by accounts with as many bodies waiting as the caller, or the caller's was pushed out. */
const placesTaken = () =>
  new ApiError(
    429,
    'RATE_LIMITED',
    'Your posts hold as many places in the rendering queue as anyone; try again when they are done.',
    [{ path: 'body', message: 'Too many of your posts wait to be rendered.' }],
    { 'retry-after': String(RETRY_AFTER_SECONDS) },
  )

/** The backfill's account in the queue: it renders one body at a time (see backfill.ts). */
const BACKFILL = ''

const escapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }

/**
 * The body shown as written, for a post written before HTML was rendered whose body renders past
 * HTML_MAX_LENGTH (none can be written now): escaped, so safe as it is, and at most 6 × 100 000 +
 * 11 characters long, within the bound.
 */
export const plainTextHtml = (body: string) => `<pre>${body.replace(/[&<>"]/g, (char) => escapes[char]!)}</pre>`

/** A body rendered: its sanitized HTML, and the ids of the media items it shows (sorted). */
export interface RenderedBody {
  html: string
  mediaIds: string[]
}

export interface HtmlRenderer {
  /**
   * The body as sanitized HTML; HtmlTooLargeError past HTML_MAX_LENGTH, a 429 ApiError past
   * RENDERS_PER_USER of `userId`'s at once (none when no user asks: the backfill) or when its lane's
   * places are held by accounts with as many waiting (see FairQueue). Images naming one of `media`
   * render responsive (responsive-image.ts); without it, all render plain.
   */
  render(body: string, userId?: string, media?: BodyMedia): Promise<RenderedBody>
  /** Lets renderings already queued finish; safe to call twice. */
  close(): Promise<void>
}

interface Job {
  body: string
  media?: BodyMedia
  resolve(result: RenderResult): void
  reject(error: unknown): void
}

/**
 * One thread and the fair queue in front of it: the thread takes the next body only when it is
 * free, so the order is the queue's, never piscina's first come, first served.
 */
function makeLane(nice?: number) {
  // Compiled to JavaScript for `npm start`, run from TypeScript by tsx in development and tests.
  const worker = import.meta.url.endsWith('.ts') ? './render-worker.ts' : './render-worker.js'
  const pool = makeWorkerPool<{ body: string; media?: BodyMedia }, RenderResult>({
    filename: new URL(worker, import.meta.url).href,
    // One thread per lane: an ordinary body renders in about a millisecond, so one keeps up with
    // any write rate the database does, and the worst body's transient memory (about 100 MB, for a
    // table of 12 500 columns: test/content/html/pathological.test.ts) is held once, in the large lane.
    maxThreads: 1,
    minThreads: 0,
    idleTimeout: 30_000,
    workerData: { nice },
  })
  const queue = new FairQueue<Job>(RENDER_QUEUE_PLACES)
  let busy = false
  /** Who waits for the queue to empty: close(), which lets queued renderings finish first. */
  let drained: (() => void)[] = []
  const next = () => {
    if (busy) return
    const job = queue.take()
    if (job === undefined) {
      for (const resolve of drained) resolve()
      drained = []
      return
    }
    busy = true
    pool
      .run({ body: job.body, media: job.media })
      .then(job.resolve, job.reject)
      .finally(() => {
        busy = false
        next()
      })
  }
  return {
    queue,
    render: (account: string, body: string, media: BodyMedia | undefined, cost: number) =>
      new Promise<RenderResult>((resolve, reject) => {
        const admission = queue.add(account, cost, { body, media, resolve, reject })
        if (!admission.admitted) return reject(placesTaken())
        admission.pushedOut?.reject(placesTaken())
        next()
      }),
    async close() {
      if (busy || queue.size > 0) await new Promise<void>((resolve) => drained.push(resolve))
      await pool.close()
    },
  }
}

export function makeHtmlRenderer() {
  // Two lanes, so that a small body never waits behind a large one already rendering; in each,
  // accounts take fair turns weighted by cost (fair-queue.ts, render-cost.ts).
  const small = makeLane()
  const large = makeLane(LARGE_LANE_NICE)
  let closing: Promise<void> | undefined
  /** Renders in progress or waiting, by the user they are for; a user with none has no entry. */
  const rendersOf = new Map<string, number>()
  const renderer = {
    async render(body: string, userId?: string, media?: BodyMedia): Promise<RenderedBody> {
      const own = userId === undefined ? 0 : (rendersOf.get(userId) ?? 0)
      if (own >= RENDERS_PER_USER) throw ownRendersTaken()
      if (userId !== undefined) rendersOf.set(userId, own + 1)
      try {
        const cost = renderCost(body)
        const lane = cost > LARGE_RENDER_COST ? large : small
        const result = await lane.render(userId ?? BACKFILL, body, media, cost)
        if ('tooLarge' in result) throw new HtmlTooLargeError()
        return result
      } finally {
        if (userId !== undefined) {
          const left = rendersOf.get(userId)! - 1
          if (left === 0) rendersOf.delete(userId)
          else rendersOf.set(userId, left)
        }
      }
    },
    close: () => (closing ??= Promise.all([small.close(), large.close()]).then(() => undefined)),
  }
  return renderer satisfies HtmlRenderer
}
