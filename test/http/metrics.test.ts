// GET /metrics: Prometheus text with requests by operationId, latency, queue depth, database pool
// and process memory; collectors made elsewhere can be added.
import { randomUUID } from 'node:crypto'
import { Counter } from 'prom-client'
import t from 'tap'
import { build } from '../helpers/build.ts'

t.test('requests, latency, queues, pool and process, in the Prometheus text format', async (t) => {
  const app = await build(t)
  await app.inject({ method: 'GET', url: '/ping' })
  await app.inject({ method: 'GET', url: '/ping' })
  await app.inject({ method: 'GET', url: `/posts/${randomUUID()}` })
  await app.inject({ method: 'GET', url: '/no/such/route' })
  const response = await app.inject({ method: 'GET', url: '/metrics' })
  t.equal(response.statusCode, 200)
  t.match(response.headers['content-type'], /^text\/plain; version=0\.0\.4/)
  t.equal(response.headers['cache-control'], 'no-store')
  const text = response.body
  t.match(
    text,
    /^http_requests_total\{operation="ping",method="GET",status="200"\} 2$/m,
    'requests by operationId, method and status',
  )
  t.match(text, /^http_requests_total\{operation="getPost",method="GET",status="404"\} 1$/m)
  t.match(
    text,
    /^http_requests_total\{operation="unmatched",method="GET",status="404"\} 1$/m,
    'unknown URLs share one label',
  )
  t.match(
    text,
    /^http_request_duration_seconds_bucket\{le="0\.1",operation="ping"\} \d+$/m,
    'a latency histogram by operationId',
  )
  t.match(text, /^http_request_duration_seconds_count\{operation="ping"\} 2$/m)
  t.match(text, /^blog_queue_jobs\{queue="welcome-email"\} \d+$/m, 'queue depth')
  t.match(text, /^blog_db_pool_connections\{state="total"\} \d+$/m, 'database pool')
  t.match(text, /^blog_db_pool_connections\{state="waiting"\} \d+$/m)
  t.match(text, /^process_resident_memory_bytes \d+$/m, 'process memory')
  t.match(text, /^nodejs_eventloop_lag_seconds /m, 'event-loop lag')
})

t.test('collectors made elsewhere are added with addCollector', async (t) => {
  const app = await build(t)
  const hits = new Counter({ name: 'blog_example_hits_total', help: 'An example collector.', registers: [] })
  app.services.metrics.addCollector(hits)
  hits.inc(3)
  t.match((await app.inject({ method: 'GET', url: '/metrics' })).body, /^blog_example_hits_total 3$/m)
})
