// Overload: while the event loop lags past EVENT_LOOP_MAX_DELAY_MS, new requests are answered 503
// in the envelope at once; /metrics still answers; the instance recovers when the lag is gone.
// The lag is made on purpose by a handler that busy-waits, not measured: no timing assertion.
import { setTimeout as sleep } from 'node:timers/promises'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import t from 'tap'
import { build } from '../../helpers/build.ts'
import { eventually } from '../../helpers/images.ts'
import { success } from '../../../src/http/envelope.ts'
import type { OperationHandler } from '../../../src/http/operations.ts'

/** Blocks the event loop for `ms`: what a CPU-bound bug or a burst of heavy requests does. */
const busyHealth: OperationHandler<'getHealth'> = async (request) => {
  const until = Date.now() + 250
  while (Date.now() < until);
  return success(request, {
    status: 'ok' as const,
    database: { status: 'up' as const, latencyMs: 0 },
    storage: { kind: 'database' as const, status: 'up' as const, checkedAt: null },
    queue: { status: 'up' as const },
  })
}

/** The most bursts either test applies: the load that the first test needs to trigger the guard. */
const BURSTS = 5
const PROBES_PER_BURST = 20

/**
 * Busy requests one after another, each followed by one turn of the loop (where the lag monitor
 * records it), fill a whole sample of the guard (the mean lag, once a second) with lag; then probes.
 * Up to BURSTS bursts, ending early once `enough` says so after a probe. The probes' answers, in order.
 */
async function applyLoad(app: FastifyInstance, enough: (ping: LightMyRequestResponse) => Promise<boolean>) {
  const probes: LightMyRequestResponse[] = []
  for (let burst = 0; burst < BURSTS; burst++) {
    for (let request = 0; request < 8; request++) {
      await app.inject({ method: 'GET', url: '/health' })
      await sleep(1)
    }
    for (let probe = 0; probe < PROBES_PER_BURST; probe++) {
      const ping = await app.inject({ method: 'GET', url: '/ping' })
      probes.push(ping)
      if (await enough(ping)) return probes
    }
  }
  return probes
}

t.test('a lagging event loop gets 503 SERVICE_UNAVAILABLE with Retry-After, then recovers', async (t) => {
  const app = await build(t, { EVENT_LOOP_MAX_DELAY_MS: '100' }, { handlers: { getHealth: busyHealth } })
  t.equal((await app.inject({ method: 'GET', url: '/ping' })).statusCode, 200, 'answers while the loop is idle')

  let overloaded = false
  await applyLoad(app, async (ping) => {
    if (ping.statusCode !== 503) return false
    overloaded = true
    t.match(
      ping.json(),
      {
        data: null,
        error: { code: 'SERVICE_UNAVAILABLE', details: [{ path: 'server' }] },
        meta: { requestId: String },
      },
      'in the envelope',
    )
    t.equal(ping.headers['retry-after'], '5')
    const metrics = await app.inject({ method: 'GET', url: '/metrics' })
    t.equal(metrics.statusCode, 200, '/metrics still answers, so the lag can be seen')
    const liveness = await app.inject({ method: 'GET', url: '/health/live' })
    t.equal(liveness.statusCode, 200, 'so does the liveness probe: a busy instance is not one to restart')
    return true
  })
  t.ok(overloaded, `the lag was detected and answered 503 (within ${BURSTS} bursts)`)
  t.ok(
    await eventually(async () => (await app.inject({ method: 'GET', url: '/ping' })).statusCode === 200),
    'and once the loop is idle again, requests are served',
  )
})

t.test('EVENT_LOOP_MAX_DELAY_MS=0 turns the check off', async (t) => {
  const app = await build(t, { EVENT_LOOP_MAX_DELAY_MS: '0' }, { handlers: { getHealth: busyHealth } })
  // Every burst the first test may need to see a 503 (it fails past BURSTS), none ending early.
  const probes = await applyLoad(app, async () => false)
  t.equal(probes.length, BURSTS * PROBES_PER_BURST, 'probed after every burst')
  t.same(
    probes.filter((ping) => ping.statusCode !== 200).map((ping) => ping.statusCode),
    [],
    'every probe answered 200 under the load that triggers the guard',
  )
})
