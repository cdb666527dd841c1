// When the event loop lags past EVENT_LOOP_MAX_DELAY_MS, new requests are answered 503 at once
// (in the envelope, with Retry-After) instead of queueing behind the lag until they all time out.
// The lag is the mean delay of the loop over the last sample interval, as @fastify/under-pressure
// measures it; written here because that plugin's hook reads `request.routeOptions` (an object
// built on each read) for every request, which cost a few microseconds on each /ping.
import { monitorEventLoopDelay } from 'node:perf_hooks'
import type { FastifyInstance } from 'fastify'
import type { Config } from '../../config.ts'
import { ApiError, RETRY_AFTER_SECONDS } from '../../errors/api-error.ts'

/**
 * Routes still answered under pressure: the metrics that show the lag to the operator, and the
 * liveness probe, whose failure makes an orchestrator restart a busy instance (readiness, which
 * takes it out of rotation instead, is refused like the rest).
 */
const EXEMPT = new Set(['/metrics', '/health/live'])

/** How often the mean lag is sampled. */
const SAMPLE_INTERVAL_MS = 1000
/** The monitor's own timer period, taken off its mean (the delay a timer has by design). */
const RESOLUTION_MS = 10

const overloaded = () =>
  new ApiError(
    503,
    'SERVICE_UNAVAILABLE',
    'The service is overloaded; try again shortly.',
    [{ path: 'server', message: 'The server is overloaded.' }],
    { 'retry-after': String(RETRY_AFTER_SECONDS) },
  )

export function registerOverloadGuard(app: FastifyInstance, config: Pick<Config, 'eventLoopMaxDelayMs'>) {
  const maxDelayMs = config.eventLoopMaxDelayMs
  if (maxDelayMs === 0) return
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS })
  histogram.enable()
  let lagMs = 0
  // Getting ready (compiling every route's schemas) blocks the loop for a while, and the first
  // sample after it reports that as lag. It is not load: samples count from two intervals after
  // the app is ready on.
  let armedAt = Infinity
  const sampler = setInterval(() => {
    const mean = histogram.mean / 1e6 - RESOLUTION_MS
    histogram.reset()
    // No sample at all in a whole interval: the loop was blocked throughout.
    lagMs = Date.now() < armedAt ? 0 : Number.isNaN(mean) ? Infinity : Math.max(0, mean)
  }, SAMPLE_INTERVAL_MS)
  sampler.unref()
  app.addHook('onReady', (done) => {
    armedAt = Date.now() + 2 * SAMPLE_INTERVAL_MS
    done()
  })
  app.addHook('onClose', (_app, done) => {
    clearInterval(sampler)
    histogram.disable()
    done()
  })
  app.addHook('onRequest', (request, _reply, done) => {
    if (lagMs <= maxDelayMs || EXEMPT.has(request.routeOptions.url ?? '')) return done()
    request.log.warn({ type: 'eventLoopDelay', value: lagMs }, 'overloaded; answering 503')
    done(overloaded())
  })
}
