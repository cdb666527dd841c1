// Failed logins are limited per (account, client address) tightly and per account loosely: an
// attacker who used up their allowance on an account does not lock its owner out, and many
// addresses together still meet the account-wide limit. Real connections from distinct loopback
// addresses (test/helpers/from-address.ts), so the address is the one the server sees.
import type { AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import { build, usingPostgres } from '../../helpers/build.ts'
import { login, registerUser } from '../../helpers/accounts.ts'
import { fetchFrom } from '../../helpers/from-address.ts'

async function serve(t: Test, env: Record<string, string>) {
  const app = await build(t, env)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  /** Signs in from `address`; answers the status and the headers that matter here. */
  const loginFrom = async (address: string, email: string, password: string) => {
    const response = await app.contractFetch(fetchFrom(address))(`${base}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    })
    return {
      status: response.status,
      retryAfter: response.headers.get('retry-after'),
      limit: response.headers.get('ratelimit-limit'),
    }
  }
  return { app, loginFrom }
}

t.test('an attacker who used up their allowance on an account does not lock its owner out', async (t) => {
  const { app, loginFrom } = await serve(t, { LOGIN_LIMIT_PER_ACCOUNT_ADDRESS: '3', LOGIN_LIMIT_PER_ACCOUNT: '100' })
  const owner = await registerUser(app)
  for (let attempt = 1; attempt <= 3; attempt++)
    t.equal((await loginFrom('127.0.0.2', owner.email, 'a wrong guess')).status, 401, `attacker's guess ${attempt}`)
  const refused = await loginFrom('127.0.0.2', owner.email, 'a wrong guess')
  t.equal(refused.status, 429, "the attacker's address has used up its allowance on this account")
  t.ok(Number(refused.retryAfter) > 0, 'with Retry-After')
  t.equal(refused.limit, '3')
  t.equal(
    (await loginFrom('127.0.0.2', owner.email, owner.password)).status,
    429,
    'even the right password, from there',
  )
  t.equal(
    (await loginFrom('127.0.0.3', owner.email, owner.password)).status,
    200,
    'the owner signs in from their own address',
  )
  t.equal((await loginFrom('127.0.0.3', owner.email, 'a typo')).status, 401, 'and keeps an allowance of their own')
})

t.test('many addresses together still meet the account-wide limit', async (t) => {
  const { app, loginFrom } = await serve(t, { LOGIN_LIMIT_PER_ACCOUNT_ADDRESS: '2', LOGIN_LIMIT_PER_ACCOUNT: '5' })
  const owner = await registerUser(app)
  const statuses: number[] = []
  for (const address of ['127.0.0.4', '127.0.0.5', '127.0.0.6']) {
    for (let attempt = 1; attempt <= 2; attempt++)
      statuses.push((await loginFrom(address, owner.email, 'a distributed guess')).status)
  }
  t.same(statuses, [401, 401, 401, 401, 401, 429], 'five guesses from three addresses, then the account-wide limit')
  const fresh = await loginFrom('127.0.0.7', owner.email, owner.password)
  t.equal(fresh.status, 429, 'an address that never tried is refused too while the account-wide limit is spent')
  t.equal(fresh.limit, '5')
})

t.test(
  'two instances on one PostgreSQL share both counts',
  { skip: usingPostgres ? false : 'needs PostgreSQL (two instances)' },
  async (t) => {
    const env = { LOGIN_LIMIT_PER_ACCOUNT_ADDRESS: '2', LOGIN_LIMIT_PER_ACCOUNT: '3' }
    const [one, two] = [await build(t, env), await build(t, env)]
    const owner = await registerUser(one)
    const guess = (app: typeof one, remoteAddress: string) =>
      app.inject({
        method: 'POST',
        url: '/login',
        remoteAddress,
        payload: { email: owner.email, password: 'a wrong guess' },
      })
    t.equal((await guess(one, '10.20.0.1')).statusCode, 401)
    t.equal((await guess(two, '10.20.0.1')).statusCode, 401)
    t.equal(
      (await guess(one, '10.20.0.1')).statusCode,
      429,
      'the (account, address) limit, reached across both instances',
    )
    t.equal((await guess(two, '10.20.0.2')).statusCode, 401)
    t.equal((await guess(one, '10.20.0.3')).statusCode, 429, 'the account-wide limit, reached across both instances')
    t.equal((await login(two, owner.email, owner.password)).statusCode, 429)
  },
)
