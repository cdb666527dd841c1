// One benchmark figure from autocannon, and how figures are printed.
import autocannon from 'autocannon'

export interface Figure {
  name: string
  requestsPerSecond: number
  p50Ms: number
  p99Ms: number
  non2xx: number
  errors: number
  /** requests per second / those of the figure named `ratioTo`, measured in the same run */
  ratio?: number
  ratioTo?: string
}

export async function measure(name: string, options: autocannon.Options): Promise<Figure> {
  const result = await autocannon(options)
  return {
    name,
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
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
  return `${figure.name.padEnd(36)} ${String(figure.requestsPerSecond).padStart(7)} req/s  p50 ${String(figure.p50Ms).padStart(4)} ms  p99 ${String(figure.p99Ms).padStart(4)} ms${ratio}${failures}`
}
