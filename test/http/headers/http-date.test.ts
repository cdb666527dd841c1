// HTTP dates (RFC 9110 §5.6.7), without the app: written as IMF-fixdate, read in all three forms,
// anything else (a list, an ISO date, a day that does not exist) read as no date.
import t from 'tap'
import { httpDate, parseHttpDate } from '../../../src/http/headers/http-date.ts'

t.test('the three forms are read; IMF-fixdate is written', async (t) => {
  const expected = '1994-11-06T08:49:37.000Z'
  for (const form of ['Sun, 06 Nov 1994 08:49:37 GMT', 'Sunday, 06-Nov-94 08:49:37 GMT', 'Sun Nov  6 08:49:37 1994'])
    t.equal(parseHttpDate(form)?.toISOString(), expected, form)
  t.equal(httpDate(new Date('2026-11-24T10:15:00.999Z')), 'Tue, 24 Nov 2026 10:15:00 GMT', 'to the second below')
  t.equal(parseHttpDate(httpDate(new Date(expected)))?.toISOString(), expected, 'what is written is read')
  t.equal(parseHttpDate('Tue, 24 Nov 2026 23:59:60 GMT')?.toISOString(), '2026-11-24T23:59:59.000Z', 'a leap second')
  t.equal(parseHttpDate('Sat, 24 Nov 0099 10:00:00 GMT')?.getUTCFullYear(), 99, 'a year below 100 is that year')
  const next = (new Date().getUTCFullYear() + 1) % 100
  t.equal(
    parseHttpDate(`Monday, 01-Jan-${String(next).padStart(2, '0')} 00:00:00 GMT`)?.getUTCFullYear(),
    new Date().getUTCFullYear() + 1,
    'a two-digit year: the one with those digits not more than 50 years ahead',
  )
})

t.test('anything else is no date', async (t) => {
  for (const value of [
    undefined,
    '',
    'yesterday',
    '2026-11-24T10:00:00Z',
    '1732442400',
    'Tue, 24 Nov 2026 10:15:00 GMT, Tue, 24 Nov 2026 10:15:00 GMT',
    'Tue, 24 Nov 2026 10:15:00 UTC',
    'tue, 24 nov 2026 10:15:00 gmt',
    'Mon, 31 Feb 2026 00:00:00 GMT',
    'Tue, 24 Nov 2026 24:00:00 GMT',
    'Tue, 24 Nov 2026 10:60:00 GMT',
    ' Tue, 24 Nov 2026 10:15:00 GMT',
  ])
    t.equal(parseHttpDate(value), null, JSON.stringify(value))
})
