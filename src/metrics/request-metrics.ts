// Requests answered (a counter by operation, method and status) and their latency (a histogram by
// operation), counted on every request. prom-client's Counter.inc and Histogram.observe build a
// label object, validate it and hash it into a key on each call; here each series is found by
// its operation, status and method through maps, and counted in place. The text is still
// rendered by prom-client's registry, from the values these two collectors report in the shape
// its own Counter and Histogram report (test/metrics/request-metrics.test.ts compares the two).
import type { Metric, Registry } from 'prom-client'

interface CountSeries {
  labels: { operation: string; method: string; status: string }
  value: number
}

interface LatencySeries {
  operation: string
  /** Observations in each bucket alone (not yet cumulative), by upper bound. */
  buckets: number[]
  sum: number
  count: number
}

/** The values prom-client's registry renders: `metricName` defaults to the metric's name. */
interface Sample {
  metricName?: string
  labels: Record<string, string | number>
  value: number
}

export interface RequestMetrics {
  /** Counts one answered request of `operation` that took `seconds`. */
  observe(operation: string, method: string, status: number, seconds: number): void
}

export function makeRequestMetrics(
  registry: Registry,
  names: { requests: string; duration: string },
  help: { requests: string; duration: string },
  bounds: readonly number[],
): RequestMetrics {
  // Series in the order they first appeared, as prom-client lists them.
  let counts: CountSeries[] = []
  let latencies: LatencySeries[] = []
  /** operation → status → method → its count; operation → its latency. */
  let countIndex = new Map<string, Map<number, Map<string, CountSeries>>>()
  let latencyIndex = new Map<string, LatencySeries>()

  const collector = (name: string, helpText: string, type: string, samples: () => Sample[]) =>
    // The registry reads name, help, type and get(); reset() is what registry.resetMetrics() calls.
    ({
      name,
      help: helpText,
      type,
      aggregator: 'sum',
      get: async () => ({ name, help: helpText, type, aggregator: 'sum', values: samples() }),
      reset,
    }) as unknown as Metric

  function reset() {
    counts = []
    latencies = []
    countIndex = new Map()
    latencyIndex = new Map()
  }

  registry.registerMetric(
    collector(names.requests, help.requests, 'counter', () =>
      counts.map(({ labels, value }) => ({ labels: { ...labels }, value })),
    ),
  )
  registry.registerMetric(
    collector(names.duration, help.duration, 'histogram', () =>
      latencies.flatMap(({ operation, buckets, sum, count }): Sample[] => {
        let cumulative = 0
        return [
          ...bounds.map((le, index) => ({
            metricName: `${names.duration}_bucket`,
            labels: { le, operation },
            value: (cumulative += buckets[index]!),
          })),
          { metricName: `${names.duration}_bucket`, labels: { le: '+Inf', operation }, value: count },
          { metricName: `${names.duration}_sum`, labels: { operation }, value: sum },
          { metricName: `${names.duration}_count`, labels: { operation }, value: count },
        ]
      }),
    ),
  )

  return {
    observe(operation, method, status, seconds) {
      let byStatus = countIndex.get(operation)
      if (byStatus === undefined) countIndex.set(operation, (byStatus = new Map()))
      let byMethod = byStatus.get(status)
      if (byMethod === undefined) byStatus.set(status, (byMethod = new Map()))
      const series = byMethod.get(method)
      if (series === undefined) {
        const created = { labels: { operation, method, status: String(status) }, value: 1 }
        byMethod.set(method, created)
        counts.push(created)
      } else series.value++

      let latency = latencyIndex.get(operation)
      if (latency === undefined) {
        latency = { operation, buckets: bounds.map(() => 0), sum: 0, count: 0 }
        latencyIndex.set(operation, latency)
        latencies.push(latency)
      }
      // The first bucket that holds it; past the last bound only +Inf (the count) does.
      for (let index = 0; index < bounds.length; index++) {
        if (seconds <= bounds[index]!) {
          latency.buckets[index]!++
          break
        }
      }
      latency.sum += seconds
      latency.count++
    },
  }
}
