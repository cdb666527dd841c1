// Where the service listens and how it stops. The public port serves the API; the internal
// listener serves what only the operator's own systems should reach (probes, metrics) and stays on
// loopback unless told otherwise. On SIGTERM the instance drains: readiness fails at once so that
// load balancers stop sending, the public port keeps serving for the drain period, then closes.
import { inProduction } from './production.ts'
import { ConfigError, flag, integer, text, type Env } from './variables.ts'

export interface ListenerConfig {
  /** NODE_ENV=production: the defaults meant for a developer's machine are refused (production.ts). */
  production: boolean
  host: string
  port: number
  /** The internal listener: getHealth (readiness), getLiveness, getMetrics, and the docs. */
  internalHost: string
  internalPort: number
  /** Whether the public port serves the internal operations too (outside production, by default). */
  internalOnPublicPort: boolean
  /** Whether the public port serves /docs and /openapi.json (the internal listener always does). */
  publicDocs: boolean
  /** How long the public port keeps serving after SIGTERM, readiness failing meanwhile. */
  drainPeriodMs: number
  /** The whole shutdown, drain included: past it the process exits anyway (with 1). */
  shutdownTimeoutMs: number
}

export function listeners(env: Env): ListenerConfig {
  const production = inProduction(env)
  // In production: the drain, then time for connections to end and jobs to finish (Kubernetes
  // waits 30 s by default before it kills).
  const shutdownTimeoutMs = integer(env, 'SHUTDOWN_TIMEOUT_MS', production ? 20_000 : 10_000, 2000, 300_000)
  // Long enough for a load balancer's health check to see readiness fail: a few of its intervals.
  const drainPeriodMs = integer(env, 'DRAIN_PERIOD_MS', production ? 5000 : 0, 0, 300_000)
  if (drainPeriodMs > shutdownTimeoutMs - 2 * CLOSE_MARGIN_MS)
    throw new ConfigError(
      'DRAIN_PERIOD_MS',
      `must be at most SHUTDOWN_TIMEOUT_MS (${shutdownTimeoutMs}) less 2 s: that timeout counts the drain, ` +
        'the requests and jobs in hand after it, and the close',
      String(drainPeriodMs),
    )
  const port = integer(env, 'PORT', 3000, 0, 65535)
  const internalPort = integer(env, 'INTERNAL_PORT', 9464, 0, 65535)
  if (port !== 0 && internalPort === port)
    throw new ConfigError(
      'INTERNAL_PORT',
      'must differ from PORT: the internal listener has a port of its own',
      String(port),
    )
  return {
    production,
    host: text(env, 'HOST', '127.0.0.1', 255)!,
    port,
    internalHost: text(env, 'INTERNAL_HOST', '127.0.0.1', 255)!,
    internalPort,
    internalOnPublicPort: flag(env, 'INTERNAL_ON_PUBLIC_PORT', !production),
    publicDocs: flag(env, 'PUBLIC_DOCS', true),
    drainPeriodMs,
    shutdownTimeoutMs,
  }
}

/** Kept for closing the queue and the database once the jobs in hand are done or failed. */
const CLOSE_MARGIN_MS = 1000

/** How long the jobs in hand, and then the queue, may take after the drain. */
export const closeTimeoutMs = (config: Pick<ListenerConfig, 'drainPeriodMs' | 'shutdownTimeoutMs'>) =>
  config.shutdownTimeoutMs - config.drainPeriodMs - CLOSE_MARGIN_MS

/**
 * After the drain, how long connections left idle may stay open for their clients to close them
 * (a proxy's keep-alive timeout for its upstreams must be shorter): half of what the close may
 * take, at most 5 s. Without a drain (development), 1 s: time for a request already sent on a
 * connection just accepted to be read.
 */
export const idleWaitMs = (config: Pick<ListenerConfig, 'drainPeriodMs' | 'shutdownTimeoutMs'>) =>
  config.drainPeriodMs === 0 ? 1000 : Math.min(5000, Math.floor(closeTimeoutMs(config) / 2))
