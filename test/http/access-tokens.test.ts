// What an access token must carry to be taken, and how it may be sent. Tokens are re-signed here
// with the test secret from a real session's claims, so that only the claim under test differs
// from a token the service would accept.
import t from 'tap'
import { build } from '../helpers/build.ts'
import { registerUser } from '../helpers/accounts.ts'
import { signToken } from '../helpers/tokens.ts'

const claimsOf = (token: string) =>
  JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>

t.test('access tokens', async (t) => {
  const app = await build(t)
  const user = await registerUser(app)
  const real = claimsOf(user.accessToken)
  const me = (authorization: string) => app.inject({ method: 'GET', url: '/me', headers: { authorization } })
  const withClaims = (claims: Record<string, unknown>) => `Bearer ${signToken({ claims: { ...real, ...claims } })}`

  t.test('the real session, re-signed, is accepted: the tokens below differ from it in one claim', async (t) => {
    t.equal((await me(withClaims({}))).statusCode, 200)
  })

  t.test('a token without exp, iss or aud → 401 TOKEN_INVALID', async (t) => {
    for (const claim of ['exp', 'iss', 'aud']) {
      const response = await me(withClaims({ [claim]: undefined }))
      t.equal(response.statusCode, 401, `without ${claim}`)
      t.equal(response.json().error.code, 'TOKEN_INVALID')
    }
  })

  t.test('sub, sid or role missing or not what the service issues → 401 TOKEN_INVALID, never a 500', async (t) => {
    const malformed: Record<string, unknown>[] = [
      { sub: undefined },
      { sid: undefined },
      { role: undefined },
      { sub: 'not-a-uuid' },
      { sid: 'not-a-uuid' },
      { sid: 12 },
      { sub: ['x'] },
      { sid: `${String(real.sid)}x` },
      { role: 'Admin' },
      { role: null },
    ]
    for (const claims of malformed) {
      const response = await me(withClaims(claims))
      t.equal(response.statusCode, 401, JSON.stringify(claims))
      t.equal(response.json().error.code, 'TOKEN_INVALID')
    }
  })

  // The service issues iat and exp as whole seconds, exp one token lifetime after iat: a token
  // whose times are malformed, or that would live longer than any the service issues, is not one of its own.
  t.test('iat and exp not as the service issues them → 401 TOKEN_INVALID', async (t) => {
    const iat = Number(real.iat)
    const malformed: Record<string, unknown>[] = [
      { iat: undefined }, // left out
      { iat: 'x' },
      { iat: {} },
      { iat: null },
      { iat: iat + 0.5 },
      { iat: iat + 3600, exp: iat + 3600 + 600 },
      { exp: 1e300 },
      { exp: Number(real.exp) + 86_400 },
      { exp: Number(real.exp) + 0.5 },
    ]
    for (const claims of malformed) {
      const response = await me(withClaims(claims))
      t.equal(response.statusCode, 401, JSON.stringify(claims))
      t.equal(response.json().error?.code, 'TOKEN_INVALID', JSON.stringify(claims))
    }
  })

  t.test('the Bearer scheme in any case, and spaces or tabs before the token (RFC 9110 §11.1)', async (t) => {
    for (const scheme of ['bearer ', 'BEARER ', 'bEaReR ', 'Bearer   ', 'Bearer\t']) {
      t.equal((await me(`${scheme}${user.accessToken}`)).statusCode, 200, JSON.stringify(scheme))
    }
    for (const refused of ['Bearer', `Bearer ${user.accessToken} x`]) {
      const response = await me(refused)
      t.equal(response.statusCode, 401, JSON.stringify(refused.slice(0, 12)))
      t.equal(response.json().error.code, 'TOKEN_INVALID')
    }
    // Another scheme, however close to Bearer, carries no access token: as if none was sent.
    for (const otherScheme of [
      `Bearer${user.accessToken}`,
      `Bearers ${user.accessToken}`,
      `Basic ${user.accessToken}`,
    ]) {
      const response = await me(otherScheme)
      t.equal(response.statusCode, 401, JSON.stringify(otherScheme.slice(0, 12)))
      t.equal(response.json().error.code, 'UNAUTHENTICATED')
    }
  })
})
