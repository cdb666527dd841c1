// The warning of X-Forwarded-For from peers TRUST_PROXY does not name stays bounded whoever sends it:
// an attacker with many source addresses gets at most WARNINGS_PER_MINUTE lines a minute into the
// log, not one per address (src/http/headers/forwarded.ts; the pace itself, with a clock the test
// moves, in forwarded-gate.test.ts).
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { WARNINGS_PER_MINUTE } from '../../../src/http/headers/forwarded.ts'
import { build } from '../../helpers/build.ts'
import { fetchFrom } from '../../helpers/from-address.ts'

t.test('many peers: at most the cap of warnings a minute', async (t) => {
  const lines: Record<string, unknown>[] = []
  const app = await build(
    t,
    { LOG_LEVEL: 'warn' },
    { logDestination: { write: (line) => void lines.push(JSON.parse(line)) } },
  )
  await app.listen({ port: 0, host: '127.0.0.1' })
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/ping`
  const peers = Array.from({ length: WARNINGS_PER_MINUTE + 5 }, (_, index) => `127.0.1.${index + 1}`)
  for (const peer of peers) {
    const response = await app.contractFetch(fetchFrom(peer))(url, { headers: { 'x-forwarded-for': '203.0.113.7' } })
    t.equal(response.status, 200, `from ${peer}: answered as ever`)
  }
  const warned = lines.filter((line) => line.header === 'X-Forwarded-For').map((line) => line.peer)
  t.same(warned, peers.slice(0, WARNINGS_PER_MINUTE), 'the first peers of the minute, up to the cap, each once')
})
