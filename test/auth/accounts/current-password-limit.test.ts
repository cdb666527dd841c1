// PATCH /me checks currentPassword like a login: wrong ones count against the account's login
// allowance (shared with POST /login), and past it even the right one gets 429. The attempt is
// counted before the password is checked, so a burst of guesses cannot reach bcrypt in numbers.
// Every one, right or wrong, also counts against the client address, as every login attempt does.
import t from 'tap'
import { build } from '../../helpers/build.ts'
import { login, registerUser, type Account } from '../../helpers/accounts.ts'

type App = Awaited<ReturnType<typeof build>>
const changePassword = (app: App, user: Account, currentPassword: string, password = `new-${currentPassword}`) =>
  app.inject({ method: 'PATCH', url: '/me', headers: user.auth, payload: { currentPassword, password } })

t.test('wrong current passwords use up the login allowance; past it, 429 on PATCH /me and on login', async (t) => {
  const app = await build(t, { LOGIN_LIMIT_PER_ACCOUNT_ADDRESS: '3', LOGIN_LIMIT_PER_ACCOUNT: '100' })
  const user = await registerUser(app)
  t.equal((await login(app, user.email, 'wrong password')).statusCode, 401, 'one failed login')
  t.equal((await changePassword(app, user, 'wrong password')).statusCode, 403, 'one wrong current password')
  t.equal((await changePassword(app, user, 'wrong again')).statusCode, 403, 'a second one')
  const limited = await changePassword(app, user, user.password)
  t.equal(limited.statusCode, 429, 'the allowance of 3 is spent: even the right current password is refused')
  t.equal(limited.json().error.code, 'RATE_LIMITED')
  t.ok(Number(limited.headers['retry-after']) > 0, 'with Retry-After')
  t.equal(limited.headers['ratelimit-limit'], '3')
  t.equal(limited.headers['ratelimit-remaining'], '0')
  t.equal((await login(app, user.email, user.password)).statusCode, 429, 'and login, which shares the count')
  t.equal(
    (await app.inject({ method: 'PATCH', url: '/me', headers: user.auth, payload: { name: 'Renamed' } })).statusCode,
    200,
    'a rename needs no password and is not limited',
  )
  const other = await registerUser(app)
  t.equal((await changePassword(app, other, other.password)).statusCode, 200, 'other accounts are not affected')
})

t.test('a burst of concurrent wrong current passwords: only the allowance reaches the password check', async (t) => {
  const app = await build(t, { LOGIN_LIMIT_PER_ACCOUNT_ADDRESS: '3', LOGIN_LIMIT_PER_ACCOUNT: '100' })
  const user = await registerUser(app)
  const statuses = (
    await Promise.all(Array.from({ length: 30 }, (_, index) => changePassword(app, user, `guess ${index}`)))
  ).map((reply) => reply.statusCode)
  t.equal(statuses.filter((status) => status === 403).length, 3, 'exactly the allowance is checked')
  t.equal(statuses.filter((status) => status === 429).length, 27, 'the rest are refused before any bcrypt work')
})

t.test('right current passwords do not use up the allowance', async (t) => {
  const app = await build(t, { LOGIN_LIMIT_PER_ACCOUNT_ADDRESS: '2', LOGIN_LIMIT_PER_ACCOUNT: '100' })
  const user = await registerUser(app)
  let current = user.password
  for (let change = 1; change <= 4; change++) {
    const next = `changed-${change}-${user.password}`
    t.equal((await changePassword(app, user, current, next)).statusCode, 200, `change ${change}`)
    current = next
  }
  t.equal((await login(app, user.email, current)).statusCode, 200, 'the allowance is whole')
})

t.test(
  'every PATCH /me with a currentPassword counts against the address, as every login attempt does, right ones too',
  async (t) => {
    const app = await build(t, { LOGIN_LIMIT_PER_ADDRESS: '3' })
    // An address of this test's own: on PostgreSQL the counters outlive the app.
    const remoteAddress = `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.21`
    const user = await registerUser(app)
    const change = (currentPassword: string, password: string, from = remoteAddress) =>
      app.inject({
        method: 'PATCH',
        url: '/me',
        remoteAddress: from,
        headers: user.auth,
        payload: { currentPassword, password },
      })
    let current = user.password
    for (let attempt = 1; attempt <= 3; attempt++) {
      const next = `changed-${attempt}-${user.password}`
      t.equal((await change(current, next)).statusCode, 200, `right current password ${attempt}`)
      current = next
    }
    const limited = await change(current, `changed-4-${user.password}`)
    t.equal(limited.statusCode, 429, 'past the allowance of the address, even the right current password is refused')
    t.match(limited.json(), { error: { code: 'RATE_LIMITED' } })
    t.ok(Number(limited.headers['retry-after']) > 0, 'with Retry-After')
    t.equal(limited.headers['ratelimit-limit'], '3')
    const signIn = await app.inject({
      method: 'POST',
      url: '/login',
      remoteAddress,
      payload: { email: user.email, password: current },
    })
    t.equal(signIn.statusCode, 429, 'and so is a login from that address, which shares the count')
    const rename = await app.inject({
      method: 'PATCH',
      url: '/me',
      remoteAddress,
      headers: user.auth,
      payload: { name: 'Renamed' },
    })
    t.equal(rename.statusCode, 200, 'a rename carries no password and is not counted')
    t.equal(
      (await change(current, `changed-5-${user.password}`, '10.251.0.21')).statusCode,
      200,
      'another address has its own allowance',
    )
  },
)
