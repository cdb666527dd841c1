// What bounds API tokens: at most API_TOKENS_MAX_PER_USER live ones per user (an expired one does
// not count, and requests at once cannot exceed it), an expiry at most API_TOKEN_MAX_DAYS ahead for users (and that far when not asked),
// names and scopes checked, an expired token refused with a code of its own, and expired tokens
// deleted by the hourly clean-up a day after they expired.
import t from 'tap'
import { loadSpec } from '../../../src/spec.ts'
import { build } from '../../helpers/build.ts'
import { registerAdmin, registerUser, type Account } from '../../helpers/accounts.ts'
import { createApiToken } from '../../helpers/api-tokens.ts'

type App = Awaited<ReturnType<typeof build>>
const DAY = 86_400_000
type Json = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any -- examples are free-form JSON
const exampleError = (response: string, name: string) =>
  (loadSpec() as unknown as Json).components.responses[response].content['application/json'].examples[name].value.error

const create = (app: App, owner: Account, payload: Record<string, unknown>) =>
  app.inject({ method: 'POST', url: '/me/tokens', headers: owner.auth, payload: { name: 'CI', ...payload } })
const expire = (app: App, id: string, agoMs: number) =>
  app.services.database.prisma.apiToken.update({ where: { id }, data: { expiresAt: new Date(Date.now() - agoMs) } })

t.test('at most 20 live tokens per user; an expired one makes room', async (t) => {
  const app = await build(t)
  const [owner, other] = [await registerUser(app), await registerUser(app)]
  const made = []
  for (let index = 0; index < 20; index++) made.push(await createApiToken(app, owner, { name: `token ${index}` }))
  const refused = await create(app, owner, { scopes: ['content:read'] })
  t.equal(refused.statusCode, 409)
  t.same(refused.json().error, exampleError('Conflict', 'apiTokenLimitReached'), "the spec's example, word for word")
  t.equal((await create(app, other, { scopes: ['content:read'] })).statusCode, 201, "another user's count is theirs")
  await expire(app, made[0]!.id, 1000)
  t.equal((await create(app, owner, { scopes: ['content:read'] })).statusCode, 201, 'an expired token does not count')
  t.equal((await create(app, owner, { scopes: ['content:read'] })).statusCode, 409, 'full again')
})

t.test('requests at once cannot all take the last place', async (t) => {
  const app = await build(t, { API_TOKENS_MAX_PER_USER: '3' })
  const owner = await registerUser(app)
  for (let index = 0; index < 2; index++) await createApiToken(app, owner)
  const answers = await Promise.all(Array.from({ length: 6 }, () => create(app, owner, { scopes: ['content:read'] })))
  t.same(
    answers.map((answer) => answer.statusCode).sort(),
    [201, 409, 409, 409, 409, 409],
    "one takes it, under the owner's row lock; the others find the user full",
  )
  t.equal(await app.services.database.prisma.apiToken.count({ where: { userId: owner.id } }), 3)
})

t.test("a user's expiry is capped at API_TOKEN_MAX_DAYS; an admin's is not", async (t) => {
  const app = await build(t, { API_TOKEN_MAX_DAYS: '30' })
  const [user, admin] = [await registerUser(app), await registerAdmin(app)]
  const days = (count: number) => new Date(Date.now() + count * DAY).toISOString()
  const omitted = (await create(app, user, { scopes: ['content:read'] })).json().data
  const ahead = Date.parse(omitted.expiresAt) - Date.now()
  t.ok(ahead > 29.9 * DAY && ahead <= 30 * DAY, 'left out: the cap')
  t.equal((await create(app, user, { scopes: ['content:read'], expiresAt: days(29) })).statusCode, 201, 'within it')
  for (const [what, expiresAt, message] of [
    ['past the cap', days(31), 'must be at most 30 days from now'],
    ['in the past', days(-1), 'must be in the future'],
    ['a leap second, which the format admits', '2027-06-30T23:59:60Z', 'must be a time that exists (no leap second)'],
  ] as const) {
    const refused = await create(app, user, { scopes: ['content:read'], expiresAt })
    t.equal(refused.statusCode, 400, what)
    t.match(refused.json().error, { code: 'VALIDATION_FAILED', details: [{ path: '/body/expiresAt', message }] }, what)
  }
  const never = (await create(app, admin, { scopes: ['admin'] })).json().data
  t.equal(never.expiresAt, null, "an admin's token without expiresAt never expires")
  t.equal((await create(app, admin, { scopes: ['admin'], expiresAt: days(1000) })).statusCode, 201, 'nor is capped')
})

t.test('names and scopes are checked', async (t) => {
  const app = await build(t)
  const owner = await registerUser(app)
  for (const [what, payload, path] of [
    ['a blank name', { name: ' \u200b ', scopes: ['content:read'] }, '/body/name'],
    ['a name of 101 characters', { name: 'x'.repeat(101), scopes: ['content:read'] }, '/body/name'],
    ['no scope', { scopes: [] }, '/body/scopes'],
    ['a scope twice', { scopes: ['content:read', 'content:read'] }, '/body/scopes'],
    ['an unknown scope', { scopes: ['content:delete'] }, '/body/scopes/0'],
  ] as const) {
    const refused = await create(app, owner, payload)
    t.equal(refused.statusCode, 400, what)
    t.match(refused.json().error, { code: 'VALIDATION_FAILED', details: [{ path }] }, what)
  }
  t.same((await app.inject({ method: 'GET', url: '/me/tokens', headers: owner.auth })).json().data, [], 'none made')
})

t.test('an expired token is refused with its own code, and cleaned up a day later', async (t) => {
  const app = await build(t)
  const owner = await registerUser(app)
  const [recent, old, live] = [
    await createApiToken(app, owner, { scopes: ['account:read'] }),
    await createApiToken(app, owner, { scopes: ['account:read'] }),
    await createApiToken(app, owner, { scopes: ['account:read'] }),
  ]
  await expire(app, recent.id, 1000)
  await expire(app, old.id, 2 * DAY)
  const refused = await app.inject({ method: 'GET', url: '/me', headers: recent.auth })
  t.equal(refused.statusCode, 401)
  t.same(refused.json().error, exampleError('Unauthorized', 'apiTokenExpired'), "the spec's example, word for word")
  t.equal(refused.headers['www-authenticate'], 'Bearer error="invalid_token"')
  const listed = async () =>
    (await app.inject({ method: 'GET', url: '/me/tokens', headers: owner.auth }))
      .json()
      .data.map((token: { id: string }) => token.id)
      .sort()
  t.same(await listed(), [recent.id, old.id, live.id].sort(), 'expired tokens are listed, until the clean-up')
  const result = await app.services.accountCleanup({ batchSize: 100, maxBatches: 5 })
  t.ok(result.apiTokens >= 1, `the clean-up deleted ${result.apiTokens}`)
  t.same(await listed(), [recent.id, live.id].sort(), 'the one expired over a day ago went; the others stay')
})

t.test("a demoted admin's tokens last no longer than a user's: the cap counts from their creation", async (t) => {
  const app = await build(t, { API_TOKEN_MAX_DAYS: '30' })
  const [owner, other] = [await registerAdmin(app), await registerAdmin(app)]
  const [endless, farOff] = [
    await createApiToken(app, owner, { scopes: ['account:read'] }),
    await createApiToken(app, owner, {
      scopes: ['account:read'],
      expiresAt: new Date(Date.now() + 1000 * DAY).toISOString(),
    }),
  ]
  const made = (id: string, agoDays: number) =>
    app.services.database.prisma.apiToken.update({
      where: { id },
      data: { createdAt: new Date(Date.now() - agoDays * DAY) },
    })
  await made(endless.id, 31)
  await made(farOff.id, 29)
  const me = (token: { auth: Record<string, string> }) => app.inject({ method: 'GET', url: '/me', headers: token.auth })
  t.equal((await me(endless)).statusCode, 200, 'while the owner is an admin, its token made 31 days ago works')
  const demoted = await app.inject({
    method: 'PATCH',
    url: `/users/${owner.id}`,
    headers: other.auth,
    payload: { role: 'user' },
  })
  t.equal(demoted.statusCode, 200)
  const refused = await me(endless)
  t.equal(refused.statusCode, 401, 'once demoted, past the 30 days a user could have: expired')
  t.equal(refused.json().error.code, 'API_TOKEN_EXPIRED')
  t.equal((await me(farOff)).statusCode, 200, 'one made 29 days ago works, for a day more')
})
