// Every failure that reaches the service comes out in the envelope with a documented code.
import t, { type Test } from 'tap'
import { build } from '../../helpers/build.ts'
import { registerUser } from '../../helpers/accounts.ts'
import { signToken, unsignedToken } from '../../helpers/tokens.ts'
import { loadSpec } from '../../../src/spec.ts'

const documentedCodes = new Set(loadSpec().components.schemas.ErrorCode?.enum)

function assertEnvelope(
  t: Test,
  response: { statusCode: number; headers: Record<string, unknown>; json(): unknown },
  status: number,
  code: string,
) {
  t.equal(response.statusCode, status, `status ${status}`)
  t.match(response.headers['content-type'], /^application\/json/)
  const body = response.json() as {
    data: unknown
    error: { code: string; message: string; details: unknown[] }
    meta: { requestId: string }
  }
  t.same(Object.keys(body).sort(), ['data', 'error', 'meta'])
  t.equal(body.data, null)
  t.equal(body.error.code, code)
  t.ok(documentedCodes.has(body.error.code), `${code} is in the spec's ErrorCode enum`)
  t.type(body.error.message, 'string')
  t.type(body.meta.requestId, 'string')
  t.equal(response.headers['x-request-id'], body.meta.requestId)
  return body
}

t.test('request failures', async (t) => {
  const app = await build(t)

  t.test('unknown path → 404 ROUTE_NOT_FOUND', async (t) => {
    assertEnvelope(t, await app.inject({ method: 'GET', url: '/nope' }), 404, 'ROUTE_NOT_FOUND')
  })

  t.test('known path, unknown method → 405 METHOD_NOT_ALLOWED with Allow', async (t) => {
    const response = await app.inject({ method: 'DELETE', url: '/ping' })
    assertEnvelope(t, response, 405, 'METHOD_NOT_ALLOWED')
    t.equal(response.headers.allow, 'GET, HEAD')
    const withId = await app.inject({ method: 'POST', url: '/posts/0192f7c4-5a2b-7c3d-8e4f-123456789abc' })
    assertEnvelope(t, withId, 405, 'METHOD_NOT_ALLOWED')
    t.equal(withId.headers.allow, 'DELETE, GET, HEAD, PATCH')
  })

  t.test('malformed JSON → 400 MALFORMED_JSON', async (t) => {
    const response = await app.inject({
      method: 'POST',
      url: '/login',
      headers: { 'content-type': 'application/json' },
      payload: '{"email": ',
    })
    assertEnvelope(t, response, 400, 'MALFORMED_JSON')
  })

  t.test('empty JSON body → 400 MALFORMED_JSON', async (t) => {
    const response = await app.inject({
      method: 'POST',
      url: '/login',
      headers: { 'content-type': 'application/json' },
      payload: '',
    })
    assertEnvelope(t, response, 400, 'MALFORMED_JSON')
  })

  t.test('unsupported content type → 415 UNSUPPORTED_MEDIA_TYPE', async (t) => {
    const response = await app.inject({
      method: 'POST',
      url: '/login',
      headers: { 'content-type': 'text/xml' },
      payload: '<login/>',
    })
    assertEnvelope(t, response, 415, 'UNSUPPORTED_MEDIA_TYPE')
  })

  t.test('body over the limit → 413 PAYLOAD_TOO_LARGE', async (t) => {
    const huge = JSON.stringify({ email: 'a@example.com', password: 'x'.repeat(2 * 1024 * 1024) })
    const response = await app.inject({
      method: 'POST',
      url: '/login',
      headers: { 'content-type': 'application/json' },
      payload: huge,
    })
    assertEnvelope(t, response, 413, 'PAYLOAD_TOO_LARGE')
  })

  t.test(
    'a body sent to an operation that takes none (DELETE): its type and size are still checked, as documented',
    async (t) => {
      const user = await registerUser(app)
      const missing = '/posts/0192f7c4-5a2b-7c3d-8e4f-123456789abc'
      const typed = await app.inject({
        method: 'DELETE',
        url: missing,
        headers: { ...user.auth, 'content-type': 'application/octet-stream' },
        payload: 'x',
      })
      assertEnvelope(t, typed, 415, 'UNSUPPORTED_MEDIA_TYPE')
      const huge = await app.inject({
        method: 'DELETE',
        url: missing,
        headers: { ...user.auth, 'content-type': 'application/json' },
        payload: JSON.stringify({ x: 'x'.repeat(2 * 1024 * 1024) }),
      })
      assertEnvelope(t, huge, 413, 'PAYLOAD_TOO_LARGE')
      // A JSON body is read and ignored: the operation goes on.
      const ignored = await app.inject({
        method: 'DELETE',
        url: missing,
        headers: { ...user.auth, 'content-type': 'application/json' },
        payload: '{"ignored":true}',
      })
      assertEnvelope(t, ignored, 404, 'POST_NOT_FOUND')
    },
  )

  t.test('schema violations → 400 VALIDATION_FAILED with the path of each bad field', async (t) => {
    const response = await app.inject({
      method: 'POST',
      url: '/register',
      payload: { email: 'not-an-email', password: 5, extra: true },
    })
    const body = assertEnvelope(t, response, 400, 'VALIDATION_FAILED')
    const paths = (body.error.details as { path: string }[]).map((detail) => detail.path)
    t.ok(paths.includes('/body/email'), 'bad format')
    t.ok(paths.includes('/body/password'), 'wrong type, not coerced')
    t.ok(paths.includes('/body/name'), 'missing')
    t.ok(paths.includes('/body/extra'), 'unknown property refused, not dropped')
  })

  t.test('bad query and path parameters → 400 VALIDATION_FAILED', async (t) => {
    const query = assertEnvelope(
      t,
      await app.inject({ method: 'GET', url: '/posts?limit=1000' }),
      400,
      'VALIDATION_FAILED',
    )
    t.match(query.error.details, [{ path: '/query/limit' }])
    const path = assertEnvelope(
      t,
      await app.inject({ method: 'GET', url: '/posts/not-a-uuid' }),
      400,
      'VALIDATION_FAILED',
    )
    t.match(path.error.details, [{ path: '/params/id' }])
  })

  t.test('malformed URL → 400', async (t) => {
    assertEnvelope(t, await app.inject({ method: 'GET', url: '/posts/%E0%A4%A' }), 400, 'VALIDATION_FAILED')
  })
})

t.test('authentication and roles', async (t) => {
  const app = await build(t)
  const me = (authorization?: string) =>
    app.inject({ method: 'GET', url: '/me', headers: authorization ? { authorization } : {} })

  t.test('no token on a signed-in operation → 401 UNAUTHENTICATED, before the body is validated', async (t) => {
    const response = assertEnvelope(t, await me(), 401, 'UNAUTHENTICATED')
    t.ok(response)
    const withBadBody = await app.inject({ method: 'POST', url: '/posts', payload: { nonsense: true } })
    assertEnvelope(t, withBadBody, 401, 'UNAUTHENTICATED')
    t.match(withBadBody.headers['www-authenticate'], /^Bearer/)
    // Credentials of another scheme carry no access token: the same answer as none.
    assertEnvelope(t, await me('Basic dXNlcjpwYXNz'), 401, 'UNAUTHENTICATED')
  })

  t.test('refused tokens → 401 TOKEN_INVALID or TOKEN_EXPIRED', async (t) => {
    assertEnvelope(t, await me('Bearer garbage'), 401, 'TOKEN_INVALID')
    assertEnvelope(t, await me(`Bearer ${unsignedToken()}`), 401, 'TOKEN_INVALID')
    assertEnvelope(
      t,
      await me(`Bearer ${signToken({ secret: 'another-secret-another-secret-another-secret' })}`),
      401,
      'TOKEN_INVALID',
    )
    assertEnvelope(t, await me(`Bearer ${signToken({ claims: { iss: 'someone-else' } })}`), 401, 'TOKEN_INVALID')
    assertEnvelope(t, await me(`Bearer ${signToken({ claims: { aud: 'another-api' } })}`), 401, 'TOKEN_INVALID')
    assertEnvelope(t, await me(`Bearer ${signToken({ claims: { role: 'superuser' } })}`), 401, 'TOKEN_INVALID')
    assertEnvelope(t, await me(`Bearer ${signToken({ header: { alg: 'HS512' } })}`), 401, 'TOKEN_INVALID')
    const past = Math.floor(Date.now() / 1000) - 3600
    assertEnvelope(t, await me(`Bearer ${signToken({ claims: { iat: past - 600, exp: past } })}`), 401, 'TOKEN_EXPIRED')
  })

  t.test('a bad token is refused even where anonymous callers are welcome', async (t) => {
    assertEnvelope(
      t,
      await app.inject({ method: 'GET', url: '/posts', headers: { authorization: 'Bearer garbage' } }),
      401,
      'TOKEN_INVALID',
    )
  })

  t.test('a user on an admin operation → 403 FORBIDDEN', async (t) => {
    const user = await registerUser(app)
    assertEnvelope(t, await app.inject({ method: 'GET', url: '/users', headers: user.auth }), 403, 'FORBIDDEN')
  })

  t.test('a well-signed token of a session that does not exist → 401 SESSION_REVOKED', async (t) => {
    assertEnvelope(t, await me(`Bearer ${signToken()}`), 401, 'SESSION_REVOKED')
  })
})

t.test('an unexpected exception → 500 INTERNAL_ERROR without internals', async (t) => {
  const app = await build(
    t,
    {},
    {
      internalErrorsExpected: true,
      handlers: {
        ping: async () => {
          throw new Error('connect ECONNREFUSED 10.0.0.7:5432 select * from "users"')
        },
      },
    },
  )
  const response = await app.inject({ method: 'GET', url: '/ping' })
  const body = assertEnvelope(t, response, 500, 'INTERNAL_ERROR')
  t.notMatch(response.body, /ECONNREFUSED|select|users|at .*\.ts/)
  t.same(body.error.details, [])
})
