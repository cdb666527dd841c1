// A caller's X-Request-Id becomes the request's id (in the logs, the X-Request-Id answer header
// and meta.requestId) only when it is 1 to 100 letters, digits, `.`, `_`, `:` or `-`; any other
// value is ignored and the service makes its own.
import t from 'tap'
import { build } from '../../helpers/build.ts'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

t.test('X-Request-Id', async (t) => {
  const app = await build(t)
  const idOf = async (given: string) => {
    const response = await app.inject({ method: 'GET', url: '/ping', headers: { 'x-request-id': given } })
    t.equal(response.headers['x-request-id'], response.json().meta.requestId, 'one id in the header and the body')
    return response.json().meta.requestId as string
  }

  for (const kept of ['abc', 'gateway:2025-03-14.123_x', '0192f7f0-8a1b-7c2d-9e3f-4a5b6c7d8e9f', 'x'.repeat(100)]) {
    t.equal(await idOf(kept), kept, `kept: ${kept.slice(0, 40)}`)
  }
  for (const ignored of ['x'.repeat(101), 'x'.repeat(10_000), 'two words', 'a/b', '<script>', 'caf\u00e9', 'a,b']) {
    const id = await idOf(ignored)
    t.not(id, ignored, `ignored: ${JSON.stringify(ignored.slice(0, 20))}`)
    t.match(id, UUID, 'replaced by one of ours')
  }
})
