// An operation whose body is required, called without one: a client that forgot the body, or one
// trying HTTP authentication on /login. Without a Content-Type no body schema applied, and the
// handler met `undefined` (500). Sent with Node's fetch, as generated clients send it.
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { build } from '../../helpers/build.ts'
import { registerAdmin } from '../../helpers/accounts.ts'
import { loadSpec } from '../../../src/spec.ts'

const spec = loadSpec()
const requiringBodies = Object.entries(spec.paths).flatMap(([path, methods]) =>
  Object.entries(methods ?? {})
    .filter(([, operation]) => (operation as { requestBody?: { required?: boolean } }).requestBody?.required === true)
    .map(([method, operation]) => ({
      method: method.toUpperCase(),
      path,
      operationId: (operation as { operationId: string }).operationId,
    })),
)

t.test('no body and no Content-Type: 400 VALIDATION_FAILED naming the body; a body without a type: 415', async (t) => {
  t.ok(requiringBodies.length >= 10, `${requiringBodies.length} operations require a body`)
  const app = await build(t)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  const admin = await registerAdmin(app)
  // Node's fetch, with every answer checked against the contract.
  const fetch = app.contractFetch()
  const id = '0192f7da-4b5c-7d6e-9f70-8a9b0c1d2e3f'
  for (const { method, path, operationId } of requiringBodies) {
    const url = `${base}${path.replace(/\{[^}]+\}/g, id)}`
    const headers = { authorization: `Bearer ${admin.accessToken}` }
    const empty = await fetch(url, { method, headers })
    const refusal = (await empty.json()) as { error: { code: string; details: { path: string; code?: string }[] } }
    t.equal(empty.status, 400, `${operationId} without a body`)
    t.match(
      refusal.error,
      { code: 'VALIDATION_FAILED', details: [{ path: '/body', code: 'required' }] },
      `${operationId}: the body is named`,
    )
    // A Blob without a type makes fetch send the bytes with no Content-Type at all.
    const untyped = await fetch(url, { method, headers, body: new Blob(['{"a":1}']) })
    t.equal(untyped.status, 415, `${operationId} with an untyped body`)
    t.equal(((await untyped.json()) as { error: { code: string } }).error.code, 'UNSUPPORTED_MEDIA_TYPE')
  }
})
