// If-None-Match (RFC 9110 §13.1.2), without the app: the weak comparison and its list syntax.
import t from 'tap'
import { ifNoneMatchHits } from '../../src/http/conditional.ts'

const etag = '"abc123"'

t.test('hits: the same tag, weak or strong, alone or in a list, and *', async (t) => {
  for (const header of ['"abc123"', 'W/"abc123"', '"x", "abc123"', '"x",W/"abc123" , "y"', '*', ' * ']) {
    t.ok(ifNoneMatchHits(header, etag), header)
  }
})

t.test('misses: no header, another tag, an unquoted or differently cased tag, an empty list', async (t) => {
  for (const header of [undefined, '"abc124"', 'abc123', '"ABC123"', '', ',', 'W/"abc12"']) {
    t.notOk(ifNoneMatchHits(header, etag), String(header))
  }
})
