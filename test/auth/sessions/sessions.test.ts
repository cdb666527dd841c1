// listSessions and revokeSession: a user sees their live sessions (where each began, when it was
// last used, which one is asking) and ends any of them; another user's session is a 404 like an
// unknown one, and nothing of theirs ends. The same across instances: test/auth/sessions/fleet.test.ts.
import { randomUUID } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { build } from '../../helpers/build.ts'
import { exchange } from '../../helpers/raw-http.ts'
import { login, registerUser, type Account } from '../../helpers/accounts.ts'
import { fetchFrom } from '../../helpers/from-address.ts'

type App = Awaited<ReturnType<typeof build>>
type Session = {
  id: string
  createdAt: string
  lastUsedAt: string
  userAgent: string | null
  address: string | null
  current: boolean
}

const bearer = (accessToken: string) => ({ authorization: `Bearer ${accessToken}` })
const sessionsOf = async (app: App, headers: Record<string, string>, query = '') => {
  const response = await app.inject({ method: 'GET', url: `/me/sessions${query}`, headers })
  if (response.statusCode !== 200) throw new Error(`listSessions: ${response.statusCode} ${response.body}`)
  return response.json() as { data: Session[]; meta: { page: { limit: number; nextCursor: string | null } } }
}
const revoke = (app: App, headers: Record<string, string>, id: string) =>
  app.inject({ method: 'DELETE', url: `/me/sessions/${id}`, headers })
const sidOf = (accessToken: string) =>
  (JSON.parse(Buffer.from(accessToken.split('.')[1]!, 'base64url').toString('utf8')) as { sid: string }).sid

/** Signs in over a real connection from `address` with `userAgent`: the address the server sees is that one. */
async function loginFrom(app: App, address: string, userAgent: string, user: Account) {
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  const response = await app.contractFetch(fetchFrom(address))(`${base}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': userAgent },
    body: JSON.stringify({ email: user.email, password: user.password }),
  })
  if (response.status !== 200) throw new Error(`login: ${response.status}`)
  return ((await response.json()) as { data: { accessToken: string; refreshToken: string } }).data
}

t.test('sessions from two clients are listed with their user agent and address, the current one flagged', async (t) => {
  const app = await build(t)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const user = await registerUser(app)
  const laptop = await loginFrom(app, '127.0.0.2', 'Laptop/1.0 (X11)', user)
  const phone = await loginFrom(app, '127.0.0.3', 'Phone/2.0 (iOS)', user)

  const { data, meta } = await sessionsOf(app, bearer(laptop.accessToken))
  t.equal(data.length, 3, 'the registration and both logins')
  const byId = new Map(data.map((session) => [session.id, session]))
  t.match(byId.get(sidOf(laptop.accessToken)), { userAgent: 'Laptop/1.0 (X11)', address: '127.0.0.2', current: true })
  t.match(byId.get(sidOf(phone.accessToken)), { userAgent: 'Phone/2.0 (iOS)', address: '127.0.0.3', current: false })
  t.match(byId.get(sidOf(user.accessToken)), { current: false }, 'the registration began a session too')
  t.equal(data.filter((session) => session.current).length, 1, 'one current session')
  t.same(
    data.map((session) => session.id),
    [sidOf(phone.accessToken), sidOf(laptop.accessToken), sidOf(user.accessToken)],
    'newest first',
  )
  t.same(meta.page, { limit: 20, nextCursor: null })

  const first = await sessionsOf(app, bearer(phone.accessToken), '?limit=2')
  t.equal(first.data.length, 2)
  t.ok(first.meta.page.nextCursor, 'a cursor to the rest')
  const rest = await sessionsOf(app, bearer(phone.accessToken), `?limit=2&cursor=${first.meta.page.nextCursor}`)
  t.same(
    [...first.data, ...rest.data].map((session) => session.id),
    data.map((session) => session.id),
    'paged by cursor, nothing lost or repeated',
  )
  t.equal(rest.meta.page.nextCursor, null)

  // A refresh keeps what the session recorded at sign-in.
  const refreshed = await app.inject({
    method: 'POST',
    url: '/refresh',
    remoteAddress: '127.0.0.9',
    headers: { 'user-agent': 'Something/else' },
    payload: { refreshToken: laptop.refreshToken },
  })
  t.equal(refreshed.statusCode, 200)
  t.match((await sessionsOf(app, bearer(refreshed.json().data.accessToken))).data, [
    {},
    { userAgent: 'Laptop/1.0 (X11)', address: '127.0.0.2', current: true },
    {},
  ])
})

t.test('revoking a session refuses its access and refresh tokens at once; the others live on', async (t) => {
  const app = await build(t)
  const user = await registerUser(app)
  const phone = (await login(app, user.email, user.password)).json().data
  t.equal((await revoke(app, user.auth, sidOf(phone.accessToken))).statusCode, 204)

  const refused = await app.inject({ method: 'GET', url: '/me', headers: bearer(phone.accessToken) })
  t.equal(refused.statusCode, 401, "the revoked session's access token is refused")
  t.equal(refused.json().error.code, 'SESSION_REVOKED')
  const refresh = await app.inject({ method: 'POST', url: '/refresh', payload: { refreshToken: phone.refreshToken } })
  t.equal(refresh.json().error.code, 'REFRESH_TOKEN_INVALID', 'and its refresh token')
  t.same(
    (await sessionsOf(app, user.auth)).data.map((session) => session.id),
    [sidOf(user.accessToken)],
    'it is no longer listed',
  )
  const again = await revoke(app, user.auth, sidOf(phone.accessToken))
  t.equal(again.statusCode, 404, 'a session that has ended is not found')
  t.equal(again.json().error.code, 'SESSION_NOT_FOUND')

  t.equal((await revoke(app, user.auth, sidOf(user.accessToken))).statusCode, 204, 'the current one may end too')
  t.equal(
    (await app.inject({ method: 'GET', url: '/me', headers: user.auth })).json().error.code,
    'SESSION_REVOKED',
    'as a logout does',
  )
})

t.test("another user's session is not found, exactly as an unknown id, and nothing of theirs ends", async (t) => {
  const app = await build(t)
  const [alice, mallory] = [await registerUser(app, 'alice'), await registerUser(app, 'mallory')]
  const others = await revoke(app, mallory.auth, sidOf(alice.accessToken))
  const unknown = await revoke(app, mallory.auth, randomUUID())
  t.equal(others.statusCode, 404)
  t.same(others.json().error, unknown.json().error, 'the same answer as for an id that does not exist')
  t.same(others.json().error, { code: 'SESSION_NOT_FOUND', message: 'Session not found.', details: [] })
  t.equal(
    (await app.inject({ method: 'GET', url: '/me', headers: alice.auth })).statusCode,
    200,
    "Alice's session lives",
  )
  t.equal((await sessionsOf(app, alice.auth)).data.length, 1)
  t.same(
    (await sessionsOf(app, mallory.auth)).data.map((session) => session.id),
    [sidOf(mallory.accessToken)],
    'a user lists only their own sessions',
  )
  const malformed = await revoke(app, mallory.auth, 'not-an-id')
  t.equal(malformed.statusCode, 400, 'a malformed id is a validation error')
  t.equal((await app.inject({ method: 'GET', url: '/me/sessions' })).statusCode, 401, 'signed-in users only')
})

t.test('the user agent is stored without control characters and cut to 256 characters', async (t) => {
  const app = await build(t)
  const user = await registerUser(app)
  const signedIn = await app.inject({
    method: 'POST',
    url: '/login',
    headers: { 'user-agent': `Odd\tAgent\u0085${'x'.repeat(400)}` },
    payload: { email: user.email, password: user.password },
  })
  const { data } = await sessionsOf(app, bearer(signedIn.json().data.accessToken))
  const stored = data.find((session) => session.current)!.userAgent!
  t.equal(stored.length, 256)
  t.equal(stored.slice(0, 12), 'Odd Agent xx', 'control characters became spaces')
  t.notMatch(stored, /\p{Cc}/u)
  const none = await app.inject({
    method: 'POST',
    url: '/login',
    headers: { 'user-agent': '' },
    payload: { email: user.email, password: user.password },
  })
  t.equal(
    (await sessionsOf(app, bearer(none.json().data.accessToken))).data.find((session) => session.current)!.userAgent,
    null,
    'no user agent: null',
  )
})

t.test('a UTF-8 user agent is stored as sent; one in Latin-1 is kept as read', async (t) => {
  const app = await build(t)
  const user = await registerUser(app)
  const agentOf = async (header: string) => {
    const signedIn = await app.inject({
      method: 'POST',
      url: '/login',
      headers: { 'user-agent': header },
      payload: { email: user.email, password: user.password },
    })
    return (await sessionsOf(app, bearer(signedIn.json().data.accessToken))).data.find((session) => session.current)!
      .userAgent
  }
  // Node reads header bytes as Latin-1: the UTF-8 bytes of "é" arrive as "Ã©".
  t.equal(await agentOf(Buffer.from('Browsér/1.0 ✓').toString('latin1')), 'Browsér/1.0 ✓', 'UTF-8 decoded')
  t.equal(await agentOf('Browsér/1.0'), 'Browsér/1.0', 'a lone Latin-1 byte is not UTF-8: kept as read')
  const long = await agentOf(Buffer.from('é'.repeat(300)).toString('latin1'))
  t.equal(long, 'é'.repeat(256), 'cut to 256 characters after decoding')

  // And over a real connection, the bytes as a browser sends them (inject hands over a string).
  await app.listen({ port: 0, host: '127.0.0.1' })
  const body = JSON.stringify({ email: user.email, password: user.password })
  const answer = await exchange(
    (app.server.address() as AddressInfo).port,
    Buffer.concat([
      Buffer.from(
        `POST /login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\nUser-Agent: `,
      ),
      Buffer.from('Browsér/1.0 (日本語) ✓', 'utf8'),
      Buffer.from(`\r\n\r\n${body}`),
    ]),
  )
  const token = (JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { data: { accessToken: string } }).data
    .accessToken
  t.equal(
    (await sessionsOf(app, bearer(token))).data.find((session) => session.current)!.userAgent,
    'Browsér/1.0 (日本語) ✓',
    'UTF-8 bytes on the wire: stored as the text they encode',
  )
})

t.test('session requests are limited per account and per address', async (t) => {
  const app = await build(t, { SESSIONS_LIMIT_PER_ACCOUNT: '3', SESSIONS_LIMIT_PER_ADDRESS: '5' })
  // An address of this test's own: on PostgreSQL the counters outlive the app.
  const remoteAddress = `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.31`
  const [user, other] = [await registerUser(app), await registerUser(app)]
  const list = (account: Account) =>
    app.inject({ method: 'GET', url: '/me/sessions', headers: account.auth, remoteAddress })
  for (let request = 1; request <= 2; request++) t.equal((await list(user)).statusCode, 200, `request ${request}`)
  t.equal(
    (await app.inject({ method: 'DELETE', url: `/me/sessions/${randomUUID()}`, headers: user.auth, remoteAddress }))
      .statusCode,
    404,
    'revokeSession shares the count',
  )
  const limited = await list(user)
  t.equal(limited.statusCode, 429, 'past the account’s allowance')
  t.equal(limited.json().error.code, 'RATE_LIMITED')
  t.ok(Number(limited.headers['retry-after']) > 0, 'with Retry-After')
  t.equal(limited.headers['ratelimit-limit'], '3')
  t.equal((await list(other)).statusCode, 200, 'another account from the same address has its own allowance')
  const byAddress = await list(other)
  t.equal(byAddress.statusCode, 429, 'until the address’s allowance (5 requests) is spent')
  t.equal(byAddress.headers['ratelimit-limit'], '5')
})
