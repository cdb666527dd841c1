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
  /** requests per second / those of the figure named `ratioTo`, measured in the same run */
  ratio?: number
  ratioTo?: string
  /** The service's reads of posts and of the lists' generation per request, warm-up included (scripts/bench/sql-count.ts). */
  sql?: { postsReadsPerRequest: number; loadsPerRequest: number | null; generationReadsPerRequest: number }
}

const figureOf = (name: string, result: autocannon.Result): Figure => ({
  name,
  requestsPerSecond: Math.round(result.requests.average),
  p50Ms: result.latency.p50,
  p99Ms: result.latency.p99,
  non2xx: result.non2xx,
  errors: result.errors + result.timeouts,
  requests: result.requests.total,
})

export async function measure(name: string, options: autocannon.Options): Promise<Figure> {
  return figureOf(name, await autocannon(options))
}

/** Like measure, but over a span of work rather than a duration: from now until `done` settles. */
export function measureUntil(name: string, options: autocannon.Options, done: Promise<unknown>): Promise<Figure> {
  return new Promise((resolve, reject) => {
    // A bound far past any burst: the run ends when `done` does.
    const instance = autocannon({ ...options, duration: 3_600 }, (error, result) =>
      error ? reject(error) : resolve(figureOf(name, result)),
    )
    const stop = () => instance.stop()
    done.then(stop, stop)
  })
}

/**
 * Options that give each request the next path of `paths`, in order and in turn, whichever
 * connection sends it: concurrent requests ask for different things, and two runs given the same
 * paths send the same sequence.
 */
export function spread(paths: string[]): Pick<autocannon.Options, 'requests'> {
  let next = 0
  return {
    requests: [
      {
        method: 'GET',
        setupRequest: (request) => ({ ...request, path: paths[next++ % paths.length]! }),
      },
    ],
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
      : `  [a request: ${(figure.sql.loadsPerRequest ?? 0).toFixed(2)} loads, ${figure.sql.postsReadsPerRequest.toFixed(1)} reads of posts, ${figure.sql.generationReadsPerRequest.toFixed(2)} of the generation]`
  return `${figure.name.padEnd(36)} ${String(figure.requestsPerSecond).padStart(7)} req/s  p50 ${String(figure.p50Ms).padStart(4)} ms  p99 ${String(figure.p99Ms).padStart(4)} ms${ratio}${failures}${sql}`
}
