// The breaker alone, on a clock of its own: held back after SILENT_IN_A_ROW silent attempts, one
// probe once the hold is over, and the probe's outcome ends or renews the hold.
import t from 'tap'
import { HOLD_MS, SILENT_IN_A_ROW, makeEndpointBreaker } from '../../src/webhooks/endpoint-breaker.ts'

t.test('silence holds an endpoint back; a probe decides', async (t) => {
  let now = 0
  const breaker = makeEndpointBreaker(() => now)
  for (let index = 0; index < SILENT_IN_A_ROW - 1; index++) breaker.record('a', false)
  t.ok(breaker.mayAttempt('a'), `${SILENT_IN_A_ROW - 1} silent attempts: not held yet`)
  breaker.record('a', false)
  t.notOk(breaker.mayAttempt('a'), 'held back')
  t.ok(breaker.mayAttempt('b'), 'another endpoint is not')
  now += HOLD_MS
  t.ok(breaker.mayAttempt('a'), 'the hold over: one probe')
  t.notOk(breaker.mayAttempt('a'), 'and only one while it runs')
  breaker.record('a', false)
  t.notOk(breaker.mayAttempt('a'), 'a silent probe renews the hold')
  now += HOLD_MS
  t.ok(breaker.mayAttempt('a'), 'the next probe')
  breaker.record('a', null)
  t.ok(breaker.mayAttempt('a'), 'a probe that made no connection lets another go')
  breaker.record('a', true)
  t.ok(breaker.mayAttempt('a') && breaker.mayAttempt('a'), 'an answer ends the hold')
})
