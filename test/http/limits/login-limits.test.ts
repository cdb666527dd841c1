// Failed logins past the limit get 429 with Retry-After, per account and per client address;
// on Postgres the counters are shared by every instance (test/fleet.test.ts).
import t from 'tap'
import { build } from '../../helpers/build.ts'
import { login, registerUser, uniqueEmail } from '../../helpers/accounts.ts'

t.test('per account: failed attempts past the limit are refused, even with the right password', async (t) => {
  const app = await build(t, { LOGIN_LIMIT_PER_ACCOUNT: '3', LOGIN_LIMIT_PER_ADDRESS: '1000' })
  const user = await registerUser(app)
  for (let attempt = 1; attempt <= 3; attempt++)
    t.equal((await login(app, user.email, 'wrong password')).statusCode, 401, `failure ${attempt}`)
  const limited = await login(app, user.email, user.password)
  t.equal(limited.statusCode, 429)
  t.equal(limited.json().error.code, 'RATE_LIMITED')
  t.ok(Number(limited.headers['retry-after']) > 0, 'Retry-After')
  t.equal(limited.headers['ratelimit-limit'], '3')
  t.equal(limited.headers['ratelimit-remaining'], '0')
  const otherUser = await registerUser(app)
  t.equal((await login(app, otherUser.email, otherUser.password)).statusCode, 200, 'other accounts are not affected')
})

t.test('per address: every attempt counts', async (t) => {
  const app = await build(t, { LOGIN_LIMIT_PER_ADDRESS: '4', LOGIN_LIMIT_PER_ACCOUNT: '1000' })
  const from = (remoteAddress: string, email: string) =>
    app.inject({ method: 'POST', url: '/login', remoteAddress, payload: { email, password: 'whatever password' } })
  const address = `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.7`
  for (let attempt = 1; attempt <= 4; attempt++) t.equal((await from(address, uniqueEmail())).statusCode, 401)
  const limited = await from(address, uniqueEmail())
  t.equal(limited.statusCode, 429)
  t.ok(Number(limited.headers['retry-after']) > 0)
  t.equal((await from('10.254.254.254', uniqueEmail())).statusCode, 401, 'another address is not affected')
})

t.test('registrations per address', async (t) => {
  const app = await build(t, { REGISTER_LIMIT_PER_ADDRESS: '2' })
  const remoteAddress = `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.9`
  const register = () =>
    app.inject({
      method: 'POST',
      url: '/register',
      remoteAddress,
      payload: { email: uniqueEmail(), password: 'long enough password', name: 'R' },
    })
  t.equal((await register()).statusCode, 201)
  t.equal((await register()).statusCode, 201)
  const limited = await register()
  t.equal(limited.statusCode, 429)
  t.equal(limited.json().error.code, 'RATE_LIMITED')
  t.ok(Number(limited.headers['retry-after']) > 0)
})

t.test('per account: a burst of concurrent wrong passwords cannot slip past the limit', async (t) => {
  const app = await build(t, { LOGIN_LIMIT_PER_ACCOUNT: '3', LOGIN_LIMIT_PER_ADDRESS: '1000' })
  const user = await registerUser(app)
  const statuses = (await Promise.all(Array.from({ length: 12 }, () => login(app, user.email, 'wrong password')))).map(
    (reply) => reply.statusCode,
  )
  t.equal(
    statuses.filter((status) => status === 401).length,
    3,
    'exactly the limit is let through to the password check',
  )
  t.equal(statuses.filter((status) => status === 429).length, 9)
})

t.test('per account: successful logins do not use up the limit', async (t) => {
  const app = await build(t, { LOGIN_LIMIT_PER_ACCOUNT: '2', LOGIN_LIMIT_PER_ADDRESS: '1000' })
  const user = await registerUser(app)
  for (let attempt = 1; attempt <= 4; attempt++)
    t.equal((await login(app, user.email, user.password)).statusCode, 200, `login ${attempt}`)
  t.equal((await login(app, user.email, 'wrong password')).statusCode, 401, 'failures still have their whole allowance')
  t.equal((await login(app, user.email, user.password)).statusCode, 200)
})

t.test('X-Forwarded-For names the client only when its proxy is trusted (TRUST_PROXY)', async (t) => {
  const random = () => Math.floor(Math.random() * 250)
  // Addresses of their own per run: on PostgreSQL the counters outlive the test.
  const [proxy, trustedProxy] = [`10.${random()}.${random()}.20`, `10.${random()}.${random()}.21`]
  const clients = [1, 2, 3].map((host) => `10.3.${random()}.${host}`)
  const statuses = async (app: Awaited<ReturnType<typeof build>>, remoteAddress: string) => {
    const replies = await Promise.all(
      clients.map((client) =>
        app.inject({
          method: 'POST',
          url: '/login',
          remoteAddress,
          headers: { 'x-forwarded-for': client },
          payload: { email: uniqueEmail(), password: 'whatever password' },
        }),
      ),
    )
    return replies.map((reply) => reply.statusCode).sort()
  }
  const limits = { LOGIN_LIMIT_PER_ADDRESS: '2', LOGIN_LIMIT_PER_ACCOUNT: '1000' }
  const untrusting = await build(t, limits)
  t.same(
    await statuses(untrusting, proxy),
    [401, 401, 429],
    'unset: a header a client sends does not give it a bucket of its own',
  )
  const trusting = await build(t, { ...limits, TRUST_PROXY: trustedProxy })
  t.same(
    await statuses(trusting, trustedProxy),
    [401, 401, 401],
    'from the trusted proxy: each client counts on its own',
  )
})
