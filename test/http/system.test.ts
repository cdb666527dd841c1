import t from 'tap'
import { build, usingPostgres } from '../helpers/build.ts'
import { loadSpec } from '../../src/spec.ts'

t.test('GET /ping answers in the envelope with the spec version', async (t) => {
  const app = await build(t)
  const response = await app.inject({ method: 'GET', url: '/ping' })
  t.equal(response.statusCode, 200)
  const body = response.json()
  t.match(body, {
    data: { status: 'ok', version: loadSpec().info.version, time: String },
    error: null,
    meta: { requestId: String },
  })
  t.ok(!Number.isNaN(Date.parse(body.data.time)))
})

t.test('every response names the contract version in API-Version, errors before routing included', async (t) => {
  const app = await build(t)
  for (const url of ['/ping', '/openapi.json', '/no-such-route', '/posts/%E0%A4%A']) {
    const response = await app.inject({ method: 'GET', url })
    t.equal(response.headers['api-version'], loadSpec().info.version, `GET ${url} → ${response.statusCode}`)
  }
})

t.test('GET /health reports the database and the queue', async (t) => {
  const app = await build(t)
  const response = await app.inject({ method: 'GET', url: '/health' })
  t.equal(response.statusCode, 200)
  t.match(response.json(), {
    data: { status: 'ok', database: { status: 'up', latencyMs: Number }, queue: { status: 'up' } },
    error: null,
  })
})

t.test(
  `GET /health answers 503 when the database is gone (${usingPostgres ? 'PostgreSQL' : 'embedded'})`,
  async (t) => {
    const app = await build(t)
    // Stop the queue first so its pollers do not fail noisily, then cut the database away.
    await app.services.queue.stop()
    await app.services.database.close()
    const response = await app.inject({ method: 'GET', url: '/health' })
    t.equal(response.statusCode, 503)
    const body = response.json()
    t.match(body, { data: null, error: { code: 'SERVICE_UNAVAILABLE' } })
    t.ok(
      body.error.details.some((detail: { path: string }) => detail.path === 'database'),
      'names the database',
    )
  },
)
