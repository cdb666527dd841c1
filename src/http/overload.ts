// When the event loop lags past EVENT_LOOP_MAX_DELAY_MS, new requests are answered 503 at once
// (in the envelope, with Retry-After) instead of queueing behind the lag until they all time out.
import underPressure from '@fastify/under-pressure'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Config } from '../config.ts'
import { ApiError, RETRY_AFTER_SECONDS } from '../errors/api-error.ts'

/** Routes still answered under pressure: the metrics that show the lag to the operator. */
const EXEMPT = new Set(['/metrics'])

/** How often under-pressure samples the mean lag (its default). */
const SAMPLE_INTERVAL_MS = 1000

export async function registerOverloadGuard(app: FastifyInstance, config: Pick<Config, 'eventLoopMaxDelayMs'>) {
  if (config.eventLoopMaxDelayMs === 0) return
  // Getting ready (compiling every route's schemas) blocks the loop for a while, and the first
  // sample after it reports that as lag. It is not load: the guard counts samples taken once the
  // app is ready, from two sample intervals after it on.
  let armedAt = Infinity
  app.addHook('onReady', async () => {
    armedAt = Date.now() + 2 * SAMPLE_INTERVAL_MS
  })
  await app.register(underPressure, {
    maxEventLoopDelay: config.eventLoopMaxDelayMs,
    sampleInterval: SAMPLE_INTERVAL_MS,
    // Rejecting sends the error to the central error handler, which answers in the envelope.
    pressureHandler: async (request: FastifyRequest, _reply: FastifyReply, type: string, value: number | undefined) => {
      if (Date.now() < armedAt || EXEMPT.has(request.routeOptions.url ?? '')) return
      request.log.warn({ type, value }, 'overloaded; answering 503')
      throw new ApiError(
        503,
        'SERVICE_UNAVAILABLE',
        'The service is overloaded; try again shortly.',
        [{ path: 'server', message: 'The server is overloaded.' }],
        {
          'retry-after': String(RETRY_AFTER_SECONDS),
        },
      )
    },
  })
}
