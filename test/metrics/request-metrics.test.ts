// The request counter and latency histogram, counted by our own collectors, render exactly as
// prom-client's Counter and Histogram render the same observations.
import { Counter, Histogram, Registry } from 'prom-client'
import t from 'tap'
import { makeRequestMetrics } from '../../src/metrics/request-metrics.ts'

const NAMES = { requests: 'http_requests_total', duration: 'http_request_duration_seconds' }
const HELP = { requests: 'Requests answered.', duration: 'Time to answer.' }
const BOUNDS = [0.002, 0.005, 0.01, 0.1, 1]

/** Operation, method, status, seconds: series interleaved, values on, between and past the bounds. */
const OBSERVATIONS: [string, string, number, number][] = [
  ['ping', 'GET', 200, 0.0004],
  ['getPost', 'GET', 404, 0.002],
  ['ping', 'HEAD', 200, 0.003],
  ['getPost', 'GET', 200, 0.0021],
  ['unmatched', 'POST', 404, 0],
  ['ping', 'GET', 200, 1],
  ['getPost', 'GET', 304, 7.5],
  ['/openapi.json', 'GET', 200, 0.05],
  ['getPost', 'GET', 404, 0.1],
  ['login', 'POST', 429, 1.0000001],
]

function prometheusPair() {
  const registry = new Registry()
  const requests = new Counter({
    name: NAMES.requests,
    help: HELP.requests,
    labelNames: ['operation', 'method', 'status'],
    registers: [registry],
  })
  const duration = new Histogram({
    name: NAMES.duration,
    help: HELP.duration,
    labelNames: ['operation'],
    buckets: BOUNDS,
    registers: [registry],
  })
  const observe = (operation: string, method: string, status: number, seconds: number) => {
    requests.inc({ operation, method, status: String(status) })
    duration.observe({ operation }, seconds)
  }
  return { registry, observe }
}

t.test('the same text as prom-client for the same requests, before and after a reset', async (t) => {
  const expected = prometheusPair()
  const registry = new Registry()
  const ours = makeRequestMetrics(registry, NAMES, HELP, BOUNDS)
  t.equal(await registry.metrics(), await expected.registry.metrics(), 'no request yet')
  for (const observation of OBSERVATIONS) {
    expected.observe(...observation)
    ours.observe(...observation)
  }
  const text = await registry.metrics()
  t.equal(text, await expected.registry.metrics())
  t.match(text, /^http_requests_total\{operation="getPost",method="GET",status="404"\} 2$/m)
  t.match(text, /^http_request_duration_seconds_bucket\{le="0.002",operation="getPost"\} 1$/m)

  expected.registry.resetMetrics()
  registry.resetMetrics()
  t.equal(await registry.metrics(), await expected.registry.metrics(), 'reset')
  for (const observation of OBSERVATIONS.slice(3)) {
    expected.observe(...observation)
    ours.observe(...observation)
  }
  t.equal(await registry.metrics(), await expected.registry.metrics(), 'counted again after the reset')
})
