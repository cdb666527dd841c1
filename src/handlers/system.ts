// Tag `system`: liveness, readiness and metrics.
import { ApiError, RETRY_AFTER_SECONDS } from '../errors/api-error.ts'
import { success } from '../http/envelope.ts'
import { sendError } from '../http/errors/error-handler.ts'
import type { OperationHandler } from '../http/operations.ts'

/**
 * The current time as ISO 8601, made once per millisecond: Date's toISOString costs about a
 * microsecond, more than the rest of a /ping answer's own work together.
 */
let isoAt = -1
let iso = ''
function nowIso(): string {
  const now = Date.now()
  if (now !== isoAt) {
    iso = new Date(now).toISOString()
    isoAt = now
  }
  return iso
}

// Synchronous: it never waits, so Fastify sends its answer without a promise.
export const ping: OperationHandler<'ping'> = (request) =>
  success(request, { status: 'ok' as const, version: request.server.services.version, time: nowIso() })

/** Resolves with the time taken, or rejects when `check` fails or takes longer than `timeoutMs`. */
async function timed(check: () => Promise<void>, timeoutMs: number): Promise<number> {
  const started = performance.now()
  let timer: NodeJS.Timeout | undefined
  try {
    await Promise.race([
      check(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs)
      }),
    ])
  } finally {
    clearTimeout(timer)
  }
  return Math.round((performance.now() - started) * 100) / 100
}

/** Liveness: the process serves HTTP, draining or not. */
export const getLiveness: OperationHandler<'getLiveness'> = (request) =>
  success(request, { status: 'ok' as const, uptimeSeconds: Math.floor(process.uptime()) })

/** Not an error to log: each probe during the drain gets it. */
const draining = () =>
  new ApiError(
    503,
    'SERVICE_UNAVAILABLE',
    'The instance is shutting down.',
    [{ path: 'instance', message: 'The instance is draining its requests before it stops.' }],
    { 'retry-after': String(RETRY_AFTER_SECONDS) },
  )

/**
 * Readiness: the database and the queue answer, and the instance is not shutting down. The object
 * store is reported, from what the instance last found (src/storage/storage-health.ts), and never
 * fails readiness: every instance still serves what needs no image bytes while it is down.
 */
export const getHealth: OperationHandler<'getHealth'> = async (request, reply) => {
  const { database, queue, config, drain, storage } = request.server.services
  if (drain.draining) {
    sendError(request, reply, draining())
    return undefined
  }
  const [db, jobs] = await Promise.allSettled([
    timed(() => database.ping(), config.databaseTimeoutMs),
    timed(() => queue.ping(), config.databaseTimeoutMs),
  ])
  if (db.status === 'rejected' || jobs.status === 'rejected') {
    // Why, for the operator only: the driver's text names databases, hosts and users.
    const reason = (result: PromiseSettledResult<number>) =>
      result.status === 'rejected' ? String((result.reason as Error | undefined)?.message ?? result.reason) : undefined
    request.log.warn({ database: reason(db), queue: reason(jobs) }, 'health check failed')
    const down = [
      ...(db.status === 'rejected' ? [{ path: 'database', message: 'The database cannot be reached.' }] : []),
      ...(jobs.status === 'rejected' ? [{ path: 'queue', message: 'The job queue cannot reach its database.' }] : []),
    ]
    throw new ApiError(503, 'SERVICE_UNAVAILABLE', 'The service cannot serve requests that need its database.', down, {
      'retry-after': String(RETRY_AFTER_SECONDS),
    })
  }
  const bucket = storage.health
  return success(request, {
    status: 'ok' as const,
    database: { status: 'up' as const, latencyMs: db.value },
    queue: { status: 'up' as const },
    storage: {
      kind: config.mediaStorage,
      status: bucket?.status ?? ('up' as const),
      checkedAt: bucket?.checkedAt?.toISOString() ?? null,
    },
  })
}

/** Prometheus text, not an envelope: sent here, so the handler returns nothing. */
export const getMetrics: OperationHandler<'getMetrics'> = async (request, reply) => {
  const { metrics } = request.server.services
  reply.headers({ 'content-type': metrics.contentType, 'cache-control': 'no-store' })
  reply.send(await metrics.render())
  return undefined
}
