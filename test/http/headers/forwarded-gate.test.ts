// The pace of the forwarding warnings, with a clock the test moves (src/http/headers/forwarded.ts):
// a peer once per interval, a bounded number a minute in all (those left out counted in the next
// one), and a bounded number of peers remembered.
import t from 'tap'
import { REPEAT_INTERVAL_MS, WarningGate, WARNINGS_PER_MINUTE } from '../../../src/http/headers/forwarded.ts'

const MINUTE_MS = 60_000

function gate(pace: { perMinute?: number; peers?: number } = {}) {
  const clock = { now: 1_000_000 }
  return { clock, gate: new WarningGate({ ...pace, now: () => clock.now }) }
}

t.test('the defaults: once an hour per peer, 10 warnings a minute', async (t) => {
  t.equal(REPEAT_INTERVAL_MS, 60 * 60 * 1000)
  t.equal(WARNINGS_PER_MINUTE, 10)
})

t.test('a peer is warned of again once the interval has passed, not before', async (t) => {
  const { clock, gate: warnings } = gate()
  t.equal(warnings.admit('10.0.0.5'), 0, 'the first time: warned, nothing left out')
  clock.now += REPEAT_INTERVAL_MS - 1
  t.equal(warnings.admit('10.0.0.5'), undefined, 'within the interval: not again')
  clock.now += 1
  t.equal(warnings.admit('10.0.0.5'), 0, 'an interval later: again')
  t.equal(warnings.admit('10.0.0.6'), 0, 'another peer meanwhile: its own')
})

t.test('past the cap a minute, warnings are left out and counted in the next one', async (t) => {
  const { clock, gate: warnings } = gate({ perMinute: 3 })
  t.same(
    ['10.0.0.1', '10.0.0.2', '10.0.0.3'].map((peer) => warnings.admit(peer)),
    [0, 0, 0],
  )
  t.equal(warnings.admit('10.0.0.4'), undefined, 'the fourth of the minute: left out')
  t.equal(warnings.admit('10.0.0.4'), undefined, 'and again (each request counts)')
  t.equal(warnings.admit('10.0.0.5'), undefined)
  clock.now += MINUTE_MS
  t.equal(warnings.admit('10.0.0.4'), 3, 'a minute later: a peer left out is warned of, with the count left out')
  t.equal(warnings.admit('10.0.0.5'), 0, 'the count is given once')
  t.equal(warnings.admit('10.0.0.1'), undefined, 'the peers warned of stay remembered for their interval')
})

t.test('the peers remembered are bounded: the least recently warned is forgotten first', async (t) => {
  const { clock, gate: warnings } = gate({ perMinute: 1000, peers: 3 })
  for (const peer of ['10.0.0.1', '10.0.0.2', '10.0.0.3']) warnings.admit(peer)
  t.equal(warnings.admit('10.0.0.1'), undefined, 'remembered')
  warnings.admit('10.0.0.4')
  clock.now += 1
  t.equal(warnings.admit('10.0.0.2'), 0, 'forgotten past the bound: warned of again (the cap still bounds the log)')
  t.equal(warnings.admit('10.0.0.1'), undefined, 'a peer seen recently is kept')
})
