// Prometheus metrics of one instance: requests by operationId, their latency, the job queues'
// depth, the database pool and the process. One registry per app (tests build many apps in one
// process), rendered by GET /metrics.
import { collectDefaultMetrics, Gauge, Registry, type Metric } from 'prom-client'
import type { FastifyInstance } from 'fastify'
import type { Database } from '../db/database.ts'
import { JOB_QUEUES } from '../jobs/index.ts'
import type { Queue } from '../queue/queue.ts'
import { makeRequestMetrics } from './request-metrics.ts'

export interface Metrics {
  registry: Registry
  /**
   * Adds a collector made elsewhere (the post cache's hits and misses, say):
   * `metrics.addCollector(new Counter({ name, help, registers: [] }))`.
   */
  addCollector(metric: Metric): void
  /** The text GET /metrics answers with, and its content type. */
  render(): Promise<string>
  contentType: string
}

/** Latency buckets in seconds: from a cache hit to a bcrypt login under load. */
const LATENCY_BUCKETS = [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

export function makeMetrics(services: { database: Database; queue: Queue }): Metrics {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  new Gauge({
    name: 'blog_queue_jobs',
    help: 'Jobs waiting in each queue (created or waiting for a retry), across the fleet.',
    labelNames: ['queue'],
    registers: [registry],
    async collect() {
      // While the database is down the gauge is left out rather than failing the whole scrape.
      const sizes = await Promise.allSettled(JOB_QUEUES.map((name) => services.queue.boss.getQueueSize(name)))
      this.reset()
      sizes.forEach((size, index) => size.status === 'fulfilled' && this.set({ queue: JOB_QUEUES[index]! }, size.value))
    },
  })
  new Gauge({
    name: 'blog_db_pool_connections',
    help: 'Connections of this instance’s database pool: total, idle, and requests waiting for one.',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const pool = services.database.poolStats()
      for (const state of ['total', 'idle', 'waiting'] as const) this.set({ state }, pool[state])
    },
  })
  return {
    registry,
    addCollector: (metric) => registry.registerMetric(metric),
    render: () => registry.metrics(),
    contentType: registry.contentType,
  }
}

/** Counts and times every answered request, labelled by operationId (or the route, or `unmatched`). */
export function observeRequests(app: FastifyInstance, metrics: Metrics) {
  const requests = makeRequestMetrics(
    metrics.registry,
    { requests: 'http_requests_total', duration: 'http_request_duration_seconds' },
    {
      requests: 'Requests answered, by operationId, method and status.',
      duration: 'Time from receiving a request to sending its answer, by operationId.',
    },
    LATENCY_BUCKETS,
  )
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions
    const operationId = (route.config as { operationId?: string }).operationId
    // Unknown URLs are one label, not one per URL: a scanner must not grow the series without bound.
    const operation = operationId ?? (request.is404 ? 'unmatched' : (route.url ?? 'unmatched'))
    requests.observe(operation, request.method, reply.statusCode, reply.elapsedTime / 1000)
    done()
  })
}
