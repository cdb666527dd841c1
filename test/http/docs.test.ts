import t from 'tap'
import { build } from '../helpers/build.ts'
import { loadSpec } from '../../src/spec.ts'

t.test('the contract is served at /openapi.json and shown at /docs', async (t) => {
  const app = await build(t)
  const spec = await app.inject({ method: 'GET', url: '/openapi.json' })
  t.equal(spec.statusCode, 200)
  t.match(spec.headers['content-type'], /^application\/json/)
  t.same(spec.json().info, loadSpec().info)
  t.same(Object.keys(spec.json().paths).sort(), Object.keys(loadSpec().paths).sort())

  const docs = await app.inject({ method: 'GET', url: '/docs/' })
  t.equal(docs.statusCode, 200)
  t.match(docs.headers['content-type'], /^text\/html/)
  t.match(docs.body, /swagger-ui/i)
})
