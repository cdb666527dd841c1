// The spec and the handlers are the same set, and nothing unfinished passes for done.
import t from 'tap'
import { handlers } from '../../src/handlers/index.ts'
import { isNotImplemented, notImplemented } from '../../src/http/errors/not-implemented.ts'
import { listOperations } from '../../src/spec.ts'
import { build } from '../helpers/build.ts'

// Operations whose issue is still open. Shrinks as issues land; an operation implemented but
// still listed here, or listed nowhere, fails the test.
const STILL_OPEN: string[] = []

t.test('every operationId in the spec has a handler, and every handler an operation', async (t) => {
  const specIds = listOperations()
    .map((entry) => entry.operation.operationId)
    .sort()
  t.same(Object.keys(handlers).sort(), specIds)
  t.equal(new Set(specIds).size, specIds.length, 'operationIds are unique')
})

t.test('the operations still answering 501 NOT_IMPLEMENTED are exactly the open ones', async (t) => {
  const open = Object.entries(handlers)
    .filter(([, handler]) => isNotImplemented(handler))
    .map(([id]) => id)
    .sort()
  t.same(open, STILL_OPEN)
})

t.test('an open operation answers 501 in the envelope over HTTP', async (t) => {
  // Every operation is implemented now: one is swapped for an open one, as a new operation would start.
  const app = await build(t, {}, { handlers: { getImage: notImplemented('getImage') } })
  const response = await app.inject({ method: 'GET', url: `/images/${'a'.repeat(64)}.webp` })
  t.equal(response.statusCode, 501)
  t.match(response.json(), {
    data: null,
    error: { code: 'NOT_IMPLEMENTED', message: /getImage/ },
    meta: { requestId: String },
  })
})

t.test('every operation has a tag, a summary, a description and its own security', async (t) => {
  for (const { method, path, operation } of listOperations()) {
    const name = `${method} ${path}`
    t.equal(operation.tags?.length, 1, `${name} has one tag`)
    t.type(operation.summary, 'string', `${name} has a summary`)
    t.type(operation.description, 'string', `${name} has a description`)
    t.ok(Array.isArray(operation.security), `${name} states its security`)
    t.ok(operation.responses.default, `${name} documents unexpected errors`)
  }
})
