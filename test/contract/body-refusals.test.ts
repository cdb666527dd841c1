// Every operation that reads a JSON body, or takes none (a body sent anyway is still parsed), answers
// a body of another type with 415 and an oversized one with 413 before anything else: each must
// list both, not leave them to `default`. Checked in the spec, and by sending both to each.
import t from 'tap'
import { build } from '../helpers/build.ts'
import { registerAdmin } from '../helpers/accounts.ts'
import { loadSpec } from '../../src/spec.ts'

interface Operation {
  operationId: string
  requestBody?: { content: Record<string, unknown> }
  responses: Record<string, unknown>
}

const spec = loadSpec()
const parsingBodies = Object.entries(spec.paths).flatMap(([path, methods]) =>
  Object.entries((methods ?? {}) as Record<string, Operation>)
    .filter(([method]) => ['post', 'put', 'patch', 'delete'].includes(method))
    .filter(([, operation]) => !operation.requestBody || 'application/json' in operation.requestBody.content)
    .map(([method, operation]) => ({ method: method.toUpperCase(), path, operation })),
)

t.test('413 and 415 are documented and answered by every operation that parses a JSON body', async (t) => {
  t.ok(parsingBodies.length >= 15, `${parsingBodies.length} operations`)
  for (const { operation } of parsingBodies)
    t.ok('413' in operation.responses && '415' in operation.responses, `${operation.operationId} lists 413 and 415`)

  const app = await build(t)
  const admin = await registerAdmin(app)
  const id = '0192f7da-4b5c-7d6e-9f70-8a9b0c1d2e3f'
  const huge = JSON.stringify({ padding: 'x'.repeat(app.services.config.bodyLimitBytes + 1) })
  for (const { method, path, operation } of parsingBodies) {
    const url = path.replace(/\{[^}]+\}/g, id)
    const send = (contentType: string, payload: string) =>
      app.inject({
        method: method as 'POST',
        url,
        headers: { authorization: `Bearer ${admin.accessToken}`, 'content-type': contentType },
        payload,
      })
    const xml = await send('application/xml', '<token>x</token>')
    t.equal(xml.statusCode, 415, `${operation.operationId}: application/xml`)
    const large = await send('application/json', huge)
    t.equal(large.statusCode, 413, `${operation.operationId}: a body over the limit`)
  }
})
