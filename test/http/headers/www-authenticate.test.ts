// Every 401 carries a WWW-Authenticate challenge (RFC 9110 §11.6.1), as clients receive it over
// a real connection with Node's fetch: `Bearer` alone when no credentials were sent (RFC 6750
// §3.1: no error code then), `Bearer error="invalid_token"` when an access token was refused, and
// `Login` when credentials sent in the body were (login, refreshSession), which no HTTP scheme
// carries. The responses are checked against the spec too, which documents each challenge.
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { listOperations } from '../../../src/spec.ts'
import { registerUser } from '../../helpers/accounts.ts'
import { build } from '../../helpers/build.ts'
import { specSchemas, type Json } from '../../helpers/spec-schemas.ts'
import { signToken } from '../../helpers/tokens.ts'

t.test('the spec documents the challenge on every 401', async (t) => {
  const { deref } = specSchemas()
  const operations = listOperations().filter(({ operation }) => '401' in operation.responses)
  t.ok(operations.length > 15, `${operations.length} operations answer 401`)
  for (const { method, path, operation } of operations) {
    const headers = (deref(operation.responses['401'] as Json).headers ?? {}) as Json
    t.ok('WWW-Authenticate' in headers, `${method} ${path}`)
  }
})

t.test('every 401 says how to authenticate', async (t) => {
  const app = await build(t)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  const fetch = app.contractFetch()
  const user = await registerUser(app)
  const json = { 'content-type': 'application/json' }

  /** The status, error code and challenge of one request. */
  async function challenge(path: string, init: RequestInit = {}) {
    const response = await fetch(`${base}${path}`, init)
    const body = (await response.json()) as { error: { code: string } }
    return { status: response.status, code: body.error.code, challenge: response.headers.get('www-authenticate') }
  }
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` })
  const past = Math.floor(Date.now() / 1000) - 3600

  t.same(
    await challenge('/me'),
    { status: 401, code: 'UNAUTHENTICATED', challenge: 'Bearer' },
    'no credentials: the scheme, no error',
  )
  t.same(
    await challenge('/posts', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ title: 'A title', body: 'A body.' }),
    }),
    { status: 401, code: 'UNAUTHENTICATED', challenge: 'Bearer' },
    'no credentials on a write',
  )
  // Another scheme carries no access token (RFC 6750 §3.1): as if nothing had been sent.
  const basic = { authorization: `Basic ${Buffer.from(`${user.email}:${user.password}`).toString('base64')}` }
  t.same(
    await challenge('/me', { headers: basic }),
    { status: 401, code: 'UNAUTHENTICATED', challenge: 'Bearer' },
    'Basic credentials: the scheme, no error',
  )
  t.same(
    await challenge('/me', { headers: { authorization: 'Digest username="x"' } }),
    { status: 401, code: 'UNAUTHENTICATED', challenge: 'Bearer' },
    'Digest',
  )
  t.equal(
    (await fetch(`${base}/posts`, { headers: basic })).status,
    200,
    'Basic credentials where anonymous callers are welcome: anonymous',
  )
  const invalidToken = (code: string) => ({ status: 401, code, challenge: 'Bearer error="invalid_token"' })
  t.same(await challenge('/me', { headers: bearer('not-a-token') }), invalidToken('TOKEN_INVALID'), 'a malformed token')
  t.same(
    await challenge('/me', { headers: bearer(signToken({ claims: { iat: past - 600, exp: past } })) }),
    invalidToken('TOKEN_EXPIRED'),
    'an expired token',
  )
  t.same(
    await challenge('/posts', { headers: bearer('not-a-token') }),
    invalidToken('TOKEN_INVALID'),
    'a bad token where anonymous callers are welcome',
  )
  await fetch(`${base}/logout`, { method: 'POST', headers: user.auth })
  t.same(
    await challenge('/me', { headers: user.auth }),
    invalidToken('SESSION_REVOKED'),
    'the token of an ended session',
  )

  const signIn = { status: 401, challenge: 'Login' }
  t.same(
    await challenge('/login', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ email: user.email, password: 'not-the-password' }),
    }),
    { ...signIn, code: 'INVALID_CREDENTIALS' },
    'login: wrong credentials in the body',
  )
  t.same(
    await challenge('/refresh', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ refreshToken: user.refreshToken }),
    }),
    { ...signIn, code: 'REFRESH_TOKEN_INVALID' },
    'refreshSession: the refresh token of an ended session',
  )
})
