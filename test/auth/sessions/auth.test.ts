// register, login, refresh, logout: tokens that work, rotate, die when they should.
import t from 'tap'
import { build } from '../../helpers/build.ts'
import { login, registerUser, uniqueEmail } from '../../helpers/accounts.ts'

const decode = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString())

t.test('register', async (t) => {
  const app = await build(t)

  t.test('answers 201 with a working token pair and never a password hash', async (t) => {
    const email = uniqueEmail('Reg')
    const response = await app.inject({
      method: 'POST',
      url: '/register',
      payload: { email, password: 'long enough password', name: 'Reg' },
    })
    t.equal(response.statusCode, 201)
    const { data } = response.json()
    t.match(data, {
      tokenType: 'Bearer',
      expiresIn: 600,
      refreshToken: String,
      user: { email: email.toLowerCase(), name: 'Reg', role: 'user' },
    })
    t.notMatch(response.body, /passwordHash|password_hash|\$2[aby]\$/)
    const claims = decode(data.accessToken)
    t.equal(claims.exp - claims.iat, 600, 'access tokens live 10 minutes')
    t.match(claims, { sub: data.user.id, role: 'user', sid: String, iss: 'blog-api', aud: 'blog-api-clients' })
    const me = await app.inject({ method: 'GET', url: '/me', headers: { authorization: `Bearer ${data.accessToken}` } })
    t.equal(me.statusCode, 200)
    t.same(me.json().data, data.user)
    t.notMatch(me.body, /passwordHash|\$2[aby]\$/)
  })

  t.test('a taken email, in any case, is 409 EMAIL_TAKEN', async (t) => {
    const { email } = await registerUser(app)
    const again = await app.inject({
      method: 'POST',
      url: '/register',
      payload: { email: email.toUpperCase(), password: 'another long password', name: 'Copy' },
    })
    t.equal(again.statusCode, 409)
    t.equal(again.json().error.code, 'EMAIL_TAKEN')
  })

  t.test('bad passwords are 400 naming /body/password', async (t) => {
    for (const password of ['short', 'é'.repeat(37)]) {
      const response = await app.inject({
        method: 'POST',
        url: '/register',
        payload: { email: uniqueEmail(), password, name: 'Bad' },
      })
      t.equal(response.statusCode, 400, `${Buffer.byteLength(password)} bytes`)
      t.match(response.json(), { error: { code: 'VALIDATION_FAILED', details: [{ path: '/body/password' }] } })
    }
  })
})

t.test('login', async (t) => {
  const app = await build(t)
  const user = await registerUser(app)

  t.test('the right password starts a new session', async (t) => {
    const response = await login(app, user.email.toUpperCase(), user.password)
    t.equal(response.statusCode, 200)
    t.not(decode(response.json().data.accessToken).sid, decode(user.accessToken).sid)
  })

  t.test('an unknown email and a wrong password get the same answer', async (t) => {
    const wrong = await login(app, user.email, 'not the password')
    const unknown = await login(app, uniqueEmail('nobody'), 'not the password')
    t.equal(wrong.statusCode, 401)
    t.equal(unknown.statusCode, 401)
    t.same(wrong.json().error, unknown.json().error)
    t.equal(wrong.json().error.code, 'INVALID_CREDENTIALS')
  })
})

t.test('refresh tokens rotate, and a reused one ends the session', async (t) => {
  const app = await build(t)
  const refresh = (refreshToken: string) => app.inject({ method: 'POST', url: '/refresh', payload: { refreshToken } })
  const user = await registerUser(app)

  const first = await refresh(user.refreshToken)
  t.equal(first.statusCode, 200)
  const rotated = first.json().data
  t.not(rotated.refreshToken, user.refreshToken)
  t.equal(decode(rotated.accessToken).sid, decode(user.accessToken).sid, 'same session')

  const second = await refresh(rotated.refreshToken)
  t.equal(second.statusCode, 200, 'the new token works')
  const newest = second.json().data

  const replay = await refresh(user.refreshToken)
  t.equal(replay.statusCode, 401)
  t.equal(replay.json().error.code, 'REFRESH_TOKEN_INVALID')
  t.equal((await refresh(newest.refreshToken)).statusCode, 401, 'reuse revoked the newest token too')
  const me = await app.inject({ method: 'GET', url: '/me', headers: { authorization: `Bearer ${newest.accessToken}` } })
  t.equal(me.statusCode, 401)
  t.equal(me.json().error.code, 'SESSION_REVOKED', 'and its access tokens')
  t.equal((await refresh('x'.repeat(43))).statusCode, 401, 'an unknown token')
})

t.test('of concurrent refreshes with one token, exactly one gets a pair, and the session ends', async (t) => {
  const app = await build(t)
  const user = await registerUser(app)
  const answers = await Promise.all(
    [1, 2, 3].map(() => app.inject({ method: 'POST', url: '/refresh', payload: { refreshToken: user.refreshToken } })),
  )
  t.same(answers.map((answer) => answer.statusCode).sort(), [200, 401, 401])
  // The losers count as a second presentation: the session ends, the winner's new pair with it.
  const winner = answers.find((answer) => answer.statusCode === 200)!.json().data
  const me = await app.inject({ method: 'GET', url: '/me', headers: { authorization: `Bearer ${winner.accessToken}` } })
  t.equal(me.json().error?.code, 'SESSION_REVOKED', "the winner's access token")
  const again = await app.inject({ method: 'POST', url: '/refresh', payload: { refreshToken: winner.refreshToken } })
  t.equal(again.statusCode, 401, "the winner's refresh token")
})

t.test('logout ends one session at once; the other sessions keep working until all are ended', async (t) => {
  const app = await build(t)
  const user = await registerUser(app)
  const other = (await login(app, user.email, user.password)).json().data
  const third = (await login(app, user.email, user.password)).json().data
  const meWith = (token: string) =>
    app.inject({ method: 'GET', url: '/me', headers: { authorization: `Bearer ${token}` } })

  const out = await app.inject({ method: 'POST', url: '/logout', headers: user.auth })
  t.equal(out.statusCode, 204)
  t.equal(out.body, '')
  t.equal((await meWith(user.accessToken)).json().error.code, 'SESSION_REVOKED', 'its access token')
  t.equal(
    (await app.inject({ method: 'POST', url: '/refresh', payload: { refreshToken: user.refreshToken } })).statusCode,
    401,
    'its refresh token',
  )
  t.equal((await meWith(other.accessToken)).statusCode, 200, 'another session still works')

  const all = await app.inject({
    method: 'POST',
    url: '/logout',
    headers: { authorization: `Bearer ${other.accessToken}` },
    payload: { allSessions: true },
  })
  t.equal(all.statusCode, 204)
  t.equal((await meWith(other.accessToken)).statusCode, 401)
  t.equal((await meWith(third.accessToken)).statusCode, 401, 'every session ended')
})
