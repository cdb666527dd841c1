// Conditional requests (RFC 9110 §13.1–13.2), without the app: If-None-Match's weak comparison and
// list syntax; the Last-Modified sent for a change, and which validator decides a 304.
import t from 'tap'
import { ifNoneMatchHits, lastModifiedOf, notModified } from '../../../src/http/headers/conditional.ts'

const etag = '"abc123"'

t.test('hits: the same tag, weak or strong, alone or in a list, and * alone', async (t) => {
  for (const header of ['"abc123"', 'W/"abc123"', '"x", "abc123"', '"x",W/"abc123" , "y"', '*', ' * ']) {
    t.ok(ifNoneMatchHits(header, etag), header)
  }
})

t.test(
  'misses: no header, another tag, an unquoted or differently cased tag, an empty list, * not alone',
  async (t) => {
    for (const header of [undefined, '"abc124"', 'abc123', '"ABC123"', '', ',', 'W/"abc12"', 'W/*', '"x", *']) {
      t.notOk(ifNoneMatchHits(header, etag), String(header))
    }
  },
)

t.test('Last-Modified: the change itself once a few seconds old; earlier while it is fresh', async (t) => {
  const changedAt = new Date('2026-11-24T10:00:00.700Z')
  const at = (iso: string) => lastModifiedOf(changedAt, new Date(iso)).toISOString()
  t.equal(at('2026-11-24T10:01:00.000Z'), '2026-11-24T10:00:00.000Z', 'a minute later: the second of the change')
  t.equal(at('2026-11-24T10:00:05.000Z'), '2026-11-24T10:00:00.000Z', 'five seconds later too')
  // A change dated in the seconds before this read may commit after it (src/db/list-generation.ts):
  // the date sent is before any second such a change could be dated in.
  t.equal(at('2026-11-24T10:00:04.999Z'), '2026-11-24T09:59:59.000Z', 'under five seconds later: before it')
  t.equal(at('2026-11-24T10:00:00.800Z'), '2026-11-24T09:59:55.000Z', 'in the second of the change')
})

t.test('304: If-None-Match when sent, whatever the date says; else If-Modified-Since', async (t) => {
  const changedAt = new Date('2026-11-24T10:00:00.700Z')
  const now = new Date('2026-11-24T10:05:00.000Z')
  const hit = (headers: Record<string, string>) => notModified(headers, etag, changedAt, now)
  t.ok(hit({ 'if-modified-since': 'Tue, 24 Nov 2026 10:00:00 GMT' }), 'the second of the change')
  t.ok(hit({ 'if-modified-since': 'Tue, 24 Nov 2026 10:00:01 GMT' }), 'later')
  t.notOk(hit({ 'if-modified-since': 'Tue, 24 Nov 2026 09:59:59 GMT' }), 'earlier')
  t.notOk(hit({ 'if-modified-since': 'not a date' }), 'not a date: ignored')
  t.ok(hit({ 'if-modified-since': 'Tue, 24 Nov 2026 10:05:00 GMT' }), 'now')
  t.notOk(hit({ 'if-modified-since': 'Tue, 24 Nov 2026 10:05:01 GMT' }), 'later than now: invalid, ignored')
  t.notOk(hit({ 'if-modified-since': 'Fri, 31 Dec 9999 23:59:59 GMT' }), 'far in the future: ignored')
  t.notOk(hit({}), 'neither')
  t.notOk(hit({ 'if-none-match': '"other"', 'if-modified-since': 'Tue, 24 Nov 2026 10:00:01 GMT' }), 'a miss wins')
  t.ok(hit({ 'if-none-match': etag, 'if-modified-since': 'Tue, 24 Nov 2026 09:00:00 GMT' }), 'a hit wins')
})
