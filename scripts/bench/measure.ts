// One benchmark figure from autocannon, and how figures are printed.
import autocannon from 'autocannon'

export interface Figure {
  name: string
  requestsPerSecond: number
  p50Ms: number
  p99Ms: number
  non2xx: number
  errors: number
  /** Requests answered in the run. */
  requests?: number
  /**
   * Requests sent in the run: also those still in flight when it stopped, which the server works
   * on all the same (autocannon's `requests.sent`, lib/aggregateResult.js).
   */
  sent?: number
  /** requests per second / those of the figure named `ratioTo`, measured in the same run */
  ratio?: number
  ratioTo?: string
  /** Measured in rounds (scripts/bench/rounds.ts): each round's ratio (else req/s); this figure is the median round. */
  rounds?: number[]
  /**
   * The service's reads per request sent, warm-up included (scripts/bench/sql-count.ts): of posts,
   * of the lists' generation, of every other table; and loads of posts (1: one each alone would make).
   */
  sql?: {
    postsReadsPerRequest: number
    loadsPerRequest: number | null
    generationReadsPerRequest: number
    otherReadsPerRequest: number
  }
}

/**
 * autocannon 9 ends a run at the first sample tick after its deadline or stop() (lib/run.js), and
 * averages per-tick counts with the last, partial tick taken as a whole one: ticks of 100 ms keep
 * that overshoot short (a burst's window included), and req/s is answers over the run's measured
 * time rather than that average.
 */
const SAMPLE_MS = 100

const figureOf = (name: string, result: autocannon.Result): Figure => ({
  name,
  requestsPerSecond: Math.round(result.requests.total / result.duration),
  p50Ms: result.latency.p50,
  p99Ms: result.latency.p99,
  non2xx: result.non2xx,
  errors: result.errors + result.timeouts,
  requests: result.requests.total,
  sent: result.requests.sent,
})

export async function measure(name: string, options: autocannon.Options): Promise<Figure> {
  return figureOf(name, await autocannon({ ...options, sampleInt: SAMPLE_MS }))
}

/** Like measure, but over a span of work rather than a duration: from now until `done` settles. */
export function measureUntil(name: string, options: autocannon.Options, done: Promise<unknown>): Promise<Figure> {
  return new Promise((resolve, reject) => {
    // A bound far past any burst: the run ends when `done` does.
    const instance = autocannon({ ...options, duration: 3_600, sampleInt: SAMPLE_MS }, (error, result) =>
      error ? reject(error) : resolve(figureOf(name, result)),
    )
    const stop = () => instance.stop()
    done.then(stop, stop)
  })
}

/**
 * Requests that each take the next path of `paths`, in order and in turn, whichever connection
 * sends it, and from one run to the next it is given to: concurrent requests ask for different
 * things, and two sides given the same paths send the same sequence. autocannon builds each
 * request it sends once (lib/requestIterator.js), so the sequence's position is its count sent.
 */
export function spread(paths: string[]) {
  let sent = 0
  return {
    requests: [
      {
        method: 'GET',
        setupRequest: (request) => ({ ...request, path: paths[sent++ % paths.length]! }),
      },
    ] satisfies autocannon.Request[],
    /** The paths that complete the current pass over `paths`: none once the requests sent are whole passes. */
    rest: () => paths.slice(sent % paths.length || paths.length),
    sent: () => sent,
  }
}

export const withRatio = (figure: Figure, baseline: Figure): Figure => ({
  ...figure,
  ratio: Math.round((figure.requestsPerSecond / baseline.requestsPerSecond) * 100) / 100,
  ratioTo: baseline.name.trim(),
})

export function formatFigure(figure: Figure): string {
  const ratio = figure.ratio === undefined ? '' : `  ${figure.ratio.toFixed(2)}× ${figure.ratioTo}`
  const failures = figure.non2xx + figure.errors > 0 ? `  (${figure.non2xx} non-2xx, ${figure.errors} errors)` : ''
  const sql =
    figure.sql === undefined
      ? ''
      : `  [a request: ${figure.sql.loadsPerRequest?.toFixed(2) ?? 'n/a'} loads, ${figure.sql.postsReadsPerRequest.toFixed(1)} reads of posts, ${figure.sql.generationReadsPerRequest.toFixed(2)} of the generation, ${figure.sql.otherReadsPerRequest.toFixed(2)} of other tables]`
  const rounds =
    figure.rounds === undefined || figure.rounds.length < 2
      ? ''
      : `  (median of ${figure.rounds.length} rounds: ${figure.rounds.map((value) => (figure.ratio === undefined ? String(value) : value.toFixed(2))).join(', ')})`
  return `${figure.name.padEnd(36)} ${String(figure.requestsPerSecond).padStart(7)} req/s  p50 ${String(figure.p50Ms).padStart(4)} ms  p99 ${String(figure.p99Ms).padStart(4)} ms${ratio}${rounds}${failures}${sql}`
}
