// A refusal costs about what the request cost: however many problems a body has, the answer lists
// a bounded number of them (and says when it left some out), and a body nested deeper or holding
// more than any schema allows is refused before it is parsed into a tree. Bounded by bytes and
// counts, not time.
import t from 'tap'
import { build } from '../../helpers/build.ts'

/** Far more than 20 problems of every kind a body can have, each under the 1 MiB body limit. */
const hostile: Record<string, string> = {
  'object of 50 000 unknown properties': JSON.stringify(
    Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`k${i}`, 0])),
  ),
  'array of 100 000 items': JSON.stringify(Array.from({ length: 100_000 }, () => 0)),
  'field of 100 000 items': JSON.stringify({
    email: 'a@example.com',
    password: Array.from({ length: 100_000 }, () => 0),
  }),
  'arrays nested 100 000 deep': '['.repeat(100_000) + ']'.repeat(100_000),
  'objects nested 50 000 deep': '{"a":'.repeat(50_000) + '0' + '}'.repeat(50_000),
  // Few problems, each naming a long property: the bound is in bytes, not only in details.
  '25 unknown properties of 40 000 characters': JSON.stringify(
    Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`${i}`.padEnd(40_000, 'k'), 1])),
  ),
  // Each escaped in JSON as six bytes (\u0001), here and in the answer.
  '25 unknown properties of 6 000 control characters': JSON.stringify(
    Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`${i}`.padEnd(6_000, '\u0001'), 1])),
  ),
  '25 unknown properties of 8 000 emoji': JSON.stringify(
    Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`${i}`.padEnd(16_000, '😀'), 1])),
  ),
}

/** Enough for 21 details of the longest path ajv can name here, and the envelope around them. */
const MAX_ANSWER_BYTES = 16 * 1024

interface Detail {
  path: string
  message: string
  code?: string
}

t.test('the answer to an invalid body is bounded whatever the body', async (t) => {
  const app = await build(t)
  for (const [name, payload] of Object.entries(hostile)) {
    const response = await app.inject({
      method: 'POST',
      url: '/login',
      headers: { 'content-type': 'application/json' },
      payload,
    })
    t.equal(response.statusCode, 400, `${name}: 400`)
    t.ok(
      response.rawPayload.length <= MAX_ANSWER_BYTES,
      `${name}: ${response.rawPayload.length} bytes answer ${payload.length} bytes`,
    )
    const { error } = response.json() as { error: { code: string; details: Detail[] } }
    t.equal(error.code, 'VALIDATION_FAILED', name)
    t.ok(error.details.length >= 1 && error.details.length <= 21, `${name}: ${error.details.length} details`)
  }
})

t.test('over 20 problems: the first 20, then one detail saying how many more were left out', async (t) => {
  const app = await build(t)
  // Small enough that every problem is found: 30 unknown properties and two missing ones.
  const payload = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`k${i}`, 0]))
  const response = await app.inject({ method: 'POST', url: '/login', payload })
  const { details } = (response.json() as { error: { details: Detail[] } }).error
  t.equal(details.length, 21)
  t.same(details.at(-1), { path: '/body', message: '12 more problems are not listed.', code: 'truncated' })
})

t.test('a body of more than 1000 entries is refused for its size, before it is parsed or validated', async (t) => {
  const app = await build(t)
  for (const payload of [
    hostile['object of 50 000 unknown properties']!,
    hostile['field of 100 000 items']!,
    JSON.stringify(Array.from({ length: 1001 }, () => 0)),
  ]) {
    const response = await app.inject({
      method: 'POST',
      url: '/login',
      headers: { 'content-type': 'application/json' },
      payload,
    })
    t.match(response.json(), { error: { code: 'VALIDATION_FAILED', details: [{ path: '/body', code: 'maxEntries' }] } })
  }
  // 1000 entries are still parsed, and validated.
  const response = await app.inject({
    method: 'POST',
    url: '/login',
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify(Array.from({ length: 999 }, () => 0)),
  })
  t.match(response.json(), { error: { code: 'VALIDATION_FAILED', details: [{ path: '/body', code: 'type' }] } })
})

t.test('a body nested deeper than 32 levels is refused on its path, not parsed', async (t) => {
  const app = await build(t)
  const response = await app.inject({
    method: 'POST',
    url: '/login',
    headers: { 'content-type': 'application/json' },
    payload: '['.repeat(33) + ']'.repeat(33),
  })
  t.equal(response.statusCode, 400)
  t.match(response.json(), { error: { code: 'VALIDATION_FAILED', details: [{ path: '/body', code: 'maxDepth' }] } })
  // Brackets inside strings are text, not depth; 32 levels is still JSON we parse.
  const inString = await app.inject({
    method: 'POST',
    url: '/login',
    payload: { email: 'a@example.com', password: '['.repeat(150) },
  })
  t.equal(inString.statusCode, 401, 'a password of brackets is a wrong password')
  const deepest = await app.inject({
    method: 'POST',
    url: '/login',
    headers: { 'content-type': 'application/json' },
    payload: '['.repeat(32) + ']'.repeat(32),
  })
  t.match(deepest.json(), { error: { code: 'VALIDATION_FAILED', details: [{ path: '/body', code: 'type' }] } })
})

t.test('a long unknown property is named cut short, marked, as a JSON Pointer', async (t) => {
  const app = await build(t)
  const long = 'k'.repeat(600)
  // Checked against the spec on the way, as every answer is: ErrorDetail.path is at most 500 characters.
  const response = await app.inject({
    method: 'POST',
    url: '/login',
    payload: { email: 'a@b.co', password: 'x', [long]: 1, 'a/b~c': 2 },
  })
  t.equal(response.statusCode, 400)
  const { details } = (response.json() as { error: { details: Detail[] } }).error
  t.same(
    details.map((detail) => detail.path),
    [`/body/${'k'.repeat(63)}…`, '/body/a~1b~0c'],
  )
})

t.test('values the caller wrote are quoted short in messages', async (t) => {
  const app = await build(t)
  const route = await app.inject({ method: 'GET', url: `/${'x'.repeat(10_000)}` })
  t.equal(route.statusCode, 404)
  t.ok(route.json().error.message.length <= 200, `404: ${route.json().error.message.length} characters`)
  const type = await app.inject({
    method: 'POST',
    url: '/login',
    headers: { 'content-type': `text/${'x'.repeat(10_000)}` },
    payload: '{}',
  })
  t.equal(type.statusCode, 415)
  t.ok(type.json().error.message.length <= 200, `415: ${type.json().error.message.length} characters`)
})
