// The response checker itself (test/helpers/contract.ts): a handler that breaks the contract in
// each way it can must fail the test that calls it, and responses that keep it must pass.
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { FEED_MAX_BYTES } from '../../src/content/feed/atom.ts'
import { success } from '../../src/http/envelope.ts'
import { handlers } from '../../src/handlers/index.ts'
import type { HandlerMap } from '../../src/http/operations.ts'
import { registerUser } from '../helpers/accounts.ts'
import { build } from '../helpers/build.ts'

const violation = (pattern: RegExp) => ({ name: 'ContractViolation', message: pattern })

// Handlers that go wrong the ways a real one could; each is reached through HTTP as usual.
const broken: Partial<HandlerMap> = {
  // A field of the wrong type: the serializer would print 1 as "1" and hide it.
  ping: async (request) => success(request, { status: 'ok', version: 1, time: new Date().toISOString() }) as never,
  // A status the operation does not list.
  getHealth: async (request, reply) => {
    reply.code(202)
    return handlers.getHealth(request, reply)
  },
  // A required field lost on the way (the serializer answers 500, which `default` documents).
  getCurrentUser: async (request, reply) => {
    const { data, ...rest } = (await handlers.getCurrentUser(request, reply))!
    const { email: _email, ...withoutEmail } = data
    return { ...rest, data: withoutEmail } as never
  },
  // A field the spec does not have: the serializer would drop it silently.
  updateCurrentUser: async (request, reply) => {
    const body = (await handlers.updateCurrentUser(request, reply))!
    return { ...body, data: { ...body.data, passwordHash: 'secret' } } as never
  },
  // A text body past its schema's bound, and a success body of a type the operation does not list.
  getFeed: async (request, reply) => {
    if (request.query.category !== undefined) return success(request, 'feed') as never
    reply.type('application/atom+xml').send(`<feed>${'x'.repeat(FEED_MAX_BYTES)}</feed>`)
    return undefined
  },
  // A documented, required header missing.
  listCategories: async (request, reply) => {
    const body = await handlers.listCategories(request, reply)
    reply.removeHeader('api-version')
    return body
  },
}

t.test('responses that break the contract fail the test that receives them', async (t) => {
  const app = await build(t, {}, { handlers: broken })
  const user = await registerUser(app)

  await t.rejects(
    app.inject({ method: 'GET', url: '/ping' }),
    violation(/handler ping → 200 returned: \/data\/version must be string/),
    'wrong type',
  )
  await t.rejects(
    app.inject({ method: 'GET', url: '/health' }),
    violation(/status 202 is not documented for getHealth/),
    'undocumented status',
  )
  await t.rejects(
    app.inject({ method: 'GET', url: '/me', headers: user.auth }),
    violation(/\/data must have required property 'email'/),
    'missing field',
  )
  await t.rejects(
    app.inject({ method: 'PATCH', url: '/me', headers: user.auth, payload: { name: 'Renamed' } }),
    violation(/must NOT have additional properties .*passwordHash/),
    'undeclared field',
  )
  await t.rejects(
    app.inject({ method: 'GET', url: '/feed.atom' }),
    violation(/getFeed\) body: \/ must NOT have more than 524288 characters/),
    'a text body past its bound',
  )
  await t.rejects(
    app.inject({ method: 'GET', url: '/feed.atom?category=travel' }),
    violation(/content type "application\/json" is not documented \(application\/atom\+xml\)/),
    'an envelope where the feed should be',
  )
  await t.rejects(
    app.inject({ method: 'GET', url: '/categories' }),
    violation(/required header API-Version is missing/),
    'missing header',
  )

  // The typed client's fetch, on a real port, is checked the same way.
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as AddressInfo
  await t.rejects(
    app.contractFetch()(`http://127.0.0.1:${port}/health`),
    violation(/status 202 is not documented for getHealth/),
    'over fetch',
  )
})

t.test(
  'responses that keep the contract pass: success, text bodies, documented errors, unknown routes, no body',
  async (t) => {
    const app = await build(t)
    const user = await registerUser(app)
    t.equal((await app.inject({ method: 'GET', url: '/me', headers: user.auth })).statusCode, 200)
    t.equal((await app.inject({ method: 'GET', url: '/me' })).statusCode, 401)
    t.equal((await app.inject({ method: 'GET', url: '/no-such-route' })).statusCode, 404)
    t.equal((await app.inject({ method: 'DELETE', url: '/ping' })).statusCode, 405)
    t.equal((await app.inject({ method: 'GET', url: '/feed.atom' })).statusCode, 200)
    t.equal((await app.inject({ method: 'GET', url: '/metrics' })).statusCode, 200)
    t.equal((await app.inject({ method: 'POST', url: '/logout', headers: user.auth, payload: {} })).statusCode, 204)
  },
)
