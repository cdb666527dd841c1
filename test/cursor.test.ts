// The cursor codec, without the app: what it issues decodes to the same position, and anything
// else is a 400 on /query/cursor, never a position the database cannot compare with.
import t from 'tap'
import { decodeCursor, decodeKeyCursor, encodeCursor, itemsWithin, keyPageOf, pageOf } from '../src/cursor.ts'

const position = { at: new Date('2030-10-01T07:00:00.123Z'), id: '0192f7da-4b5c-7d6e-9f70-8a9b0c1d2e3f' }
const b64 = (text: string) => Buffer.from(text).toString('base64url')

t.test('what it issues, it reads back; no cursor is the first page', async (t) => {
  t.same(decodeCursor(encodeCursor(position)), position)
  t.match(encodeCursor(position), /^[A-Za-z0-9_-]+$/, 'base64url, as the spec says')
  t.equal(decodeCursor(undefined), undefined)
  t.equal(decodeKeyCursor(undefined, /^[a-z]+$/), undefined)
  t.equal(decodeKeyCursor(b64('travel'), /^[a-z]+$/), 'travel')
})

t.test('anything else is 400 VALIDATION_FAILED on /query/cursor', async (t) => {
  const forged = [
    '',
    'not base64 at all!',
    b64('2030-10-01T07:00:00.123Z'),
    b64('2030-10-01T07:00:00.123Z|not-a-uuid'),
    b64('2030-02-30T07:00:00.000Z|0192f7da-4b5c-7d6e-9f70-8a9b0c1d2e3f'),
    b64('+275760-09-13T00:00:00.000Z|0192f7da-4b5c-7d6e-9f70-8a9b0c1d2e3f'),
    b64('0000-01-01T00:00:00.000Z|0192f7da-4b5c-7d6e-9f70-8a9b0c1d2e3f'),
    b64('2030-10-01 07:00:00|0192f7da-4b5c-7d6e-9f70-8a9b0c1d2e3f'),
    b64('2030-10-01T07:00:00.123Z|0192F7DA-4B5C-7D6E-9F70-8A9B0C1D2E3F'),
    // The same position as an issued cursor, spelled otherwise: each would be a list-cache entry of its own.
    b64('2030-10-01T07:00:00.123Z|0192f7da-4b5c-7d6e-9f70-8a9b0c1d2e3f|junk'),
    `${encodeCursor(position)}=`,
    `${encodeCursor(position)}.`,
    Buffer.from('2030-10-01T07:00:00.123Z|0192f7da-4b5c-7d6e-9f70-8a9b0c1d2e3f').toString('base64'),
  ]
  for (const cursor of forged) {
    t.throws(
      () => decodeCursor(cursor),
      { statusCode: 400, code: 'VALIDATION_FAILED', details: [{ path: '/query/cursor' }] },
      JSON.stringify(cursor),
    )
  }
  t.throws(
    () => decodeKeyCursor(b64('Travel; drop'), /^[a-z]+$/),
    { statusCode: 400, code: 'VALIDATION_FAILED', details: [{ path: '/query/cursor' }] },
    'a key cursor that breaks its pattern',
  )
  t.throws(
    () => decodeKeyCursor(`${b64('travel')}=`, /^[a-z]+$/),
    { statusCode: 400, code: 'VALIDATION_FAILED', details: [{ path: '/query/cursor' }] },
    'a key cursor spelled otherwise than issued',
  )
})

t.test('a page of limit + 1 rows: limit items, and the cursor of the last one only when more follow', async (t) => {
  const rows = [1, 2, 3].map((n) => ({ at: new Date(Date.UTC(2030, 0, n)), id: position.id }))
  const same = <T>(row: T) => row
  const full = pageOf(rows, 2, same, same, 1 << 20)
  t.same(full.items, rows.slice(0, 2))
  t.same(decodeCursor(full.nextCursor!), rows[1])
  t.equal(pageOf(rows, 3, same, same, 1 << 20).nextCursor, null, 'the last page')
  const keys = keyPageOf(['a', 'b', 'c'], 2, same, same, 1 << 20)
  t.same(keys, { items: ['a', 'b'], nextCursor: b64('b') })
  t.equal(keyPageOf(['a'], 2, same, same, 1 << 20).nextCursor, null)
})

t.test(
  'a page within its byte budget: fewer items than the limit, at least one, the cursor after the last',
  async (t) => {
    const keys = ['a', 'b', 'c', 'd']
    // Each item is '"x"' (3 bytes), with a comma between two; the array's brackets are 2 bytes: ["a","b"] is 9.
    t.same(
      keyPageOf(
        keys,
        3,
        (key) => key,
        (key) => key,
        9,
      ),
      { items: ['a', 'b'], nextCursor: b64('b') },
    )
    t.same(
      keyPageOf(
        keys,
        3,
        (key) => key,
        (key) => key,
        8,
      ),
      { items: ['a'], nextCursor: b64('a') },
    )
    t.same(
      keyPageOf(
        keys,
        3,
        (key) => key,
        (key) => key,
        1,
      ),
      { items: ['a'], nextCursor: b64('a') },
      'one item at least',
    )
    t.same(
      keyPageOf(
        ['a', 'b'],
        3,
        (key) => key,
        (key) => key,
        9,
      ),
      { items: ['a', 'b'], nextCursor: null },
      'the last page',
    )
    t.equal(itemsWithin([], 9), 0)
    t.equal(itemsWithin(['a', 'é'], 9), 1, 'bytes of UTF-8 (["a","é"] is 10), not characters')
    t.equal(itemsWithin(['a', 'é'], 10), 2)
  },
)
