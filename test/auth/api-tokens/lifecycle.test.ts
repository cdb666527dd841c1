// An API token's life, as an integration lives it: made by its owner with a password session,
// shown once, used for a read and a write, listed without its secret, revoked, and refused from the
// next request on, on the instance that revoked it and (on PostgreSQL) on another one at once. The
// token never reaches a log line, whatever the level.
import t from 'tap'
import { build, usingPostgres } from '../../helpers/build.ts'
import { registerAdmin, registerUser } from '../../helpers/accounts.ts'
import { createApiToken } from '../../helpers/api-tokens.ts'
import { createScratchDatabase } from '../../helpers/postgres.ts'

t.test('create → use → list without the secret → revoke → refused everywhere', async (t) => {
  const lines: string[] = []
  // Every line at the most talkative level, to look for the token in.
  const env = {
    ...(usingPostgres ? { DATABASE_URL: await createScratchDatabase(t, 'token_life') } : {}),
    LOG_LEVEL: 'trace',
  }
  const one = await build(t, env, { logDestination: { write: (line) => void lines.push(line) } })
  // A second instance on the same PostgreSQL, as behind a load balancer; on the embedded
  // database (one process's own) the same instance stands in for it.
  const two = usingPostgres ? await build(t, env, { logDestination: { write: (line) => void lines.push(line) } }) : one
  const owner = await registerUser(one, 'owner')

  const created = await one.inject({
    method: 'POST',
    url: '/me/tokens',
    headers: owner.auth,
    payload: { name: '  Release notes from CI  ', scopes: ['content:read', 'content:write', 'account:read'] },
  })
  t.equal(created.statusCode, 201)
  const data = created.json().data
  t.match(data.token, /^blog_[0-9A-Za-z]{49}$/, 'the token, shown once, of the documented form')
  t.equal(data.prefix, data.token.slice(0, 12), 'its prefix is its first 12 characters')
  t.equal(data.name, 'Release notes from CI', 'the name without surrounding white space')
  t.equal(data.userId, owner.id)
  t.equal(data.lastUsedAt, null)
  t.ok(
    Date.parse(data.expiresAt) > Date.now() + 364 * 86_400_000,
    "a user's token without expiresAt: the cap, 365 days",
  )
  const auth = { authorization: `Bearer ${data.token}` }

  await t.test('used for a read and a write, on either instance', async (t) => {
    const me = await two.inject({ method: 'GET', url: '/me', headers: auth })
    t.equal(me.statusCode, 200, 'account:read: getCurrentUser')
    t.equal(me.json().data.id, owner.id)
    const post = await one.inject({
      method: 'POST',
      url: '/posts',
      headers: auth,
      payload: { title: 'Release 2.0', body: 'Notes.', status: 'draft' },
    })
    t.equal(post.statusCode, 201, 'content:write: createPost')
    t.equal(post.json().data.author.id, owner.id, 'written as the owner')
    const draft = await two.inject({ method: 'GET', url: `/posts/${post.json().data.id}`, headers: auth })
    t.equal(draft.statusCode, 200, "content:read sees the owner's draft")
    t.equal(
      (await two.inject({ method: 'GET', url: `/posts/${post.json().data.id}` })).statusCode,
      404,
      'others do not',
    )
  })

  await t.test('listed with its prefix and last use, never the token', async (t) => {
    const listed = await two.inject({ method: 'GET', url: '/me/tokens', headers: owner.auth })
    t.equal(listed.statusCode, 200)
    const [token] = listed.json().data
    t.match(token, { id: data.id, name: data.name, prefix: data.prefix, scopes: data.scopes })
    t.type(token.lastUsedAt, 'string', 'last used, by the requests above')
    t.notOk('token' in token)
    t.notOk(listed.body.includes(data.token.slice(12)), 'no part of the secret past the prefix')
    const all = await one.inject({
      method: 'GET',
      url: `/tokens?userId=${owner.id}`,
      headers: (await registerAdmin(one)).auth,
    })
    t.same(
      all.json().data.map((each: { id: string }) => each.id),
      [data.id],
      "an admin lists the owner's tokens, without secrets",
    )
    t.notOk(all.body.includes(data.token.slice(12)))
  })

  await t.test('another user cannot revoke it: 404, as for an unknown id', async (t) => {
    const other = await registerUser(one, 'other')
    const refused = await one.inject({ method: 'DELETE', url: `/me/tokens/${data.id}`, headers: other.auth })
    t.equal(refused.statusCode, 404)
    t.equal(refused.json().error.code, 'API_TOKEN_NOT_FOUND')
    t.equal((await two.inject({ method: 'GET', url: '/me', headers: auth })).statusCode, 200, 'still works')
  })

  await t.test('revoked on one instance, refused on the other at once', async (t) => {
    t.equal((await one.inject({ method: 'DELETE', url: `/me/tokens/${data.id}`, headers: owner.auth })).statusCode, 204)
    for (const app of [two, one]) {
      const refused = await app.inject({ method: 'GET', url: '/me', headers: auth })
      t.equal(refused.statusCode, 401)
      t.equal(refused.json().error.code, 'API_TOKEN_INVALID')
      t.equal(refused.headers['www-authenticate'], 'Bearer error="invalid_token"')
    }
    const again = await two.inject({ method: 'DELETE', url: `/me/tokens/${data.id}`, headers: owner.auth })
    t.equal(again.statusCode, 404, 'revoked already')
    t.same((await one.inject({ method: 'GET', url: '/me/tokens', headers: owner.auth })).json().data, [], 'gone')
  })

  await t.test('an admin revokes any token', async (t) => {
    const token = await createApiToken(one, owner, { scopes: ['account:read'] })
    const admin = await registerAdmin(one)
    t.equal((await two.inject({ method: 'DELETE', url: `/tokens/${token.id}`, headers: admin.auth })).statusCode, 204)
    t.equal((await one.inject({ method: 'GET', url: '/me', headers: token.auth })).statusCode, 401)
    const user = await two.inject({ method: 'DELETE', url: `/tokens/${token.id}`, headers: owner.auth })
    t.equal(user.statusCode, 403, 'a user may not')
  })

  const again = await one.inject({
    method: 'POST',
    url: '/me/tokens',
    headers: owner.auth,
    payload: { name: 'Kept by no cache', scopes: ['account:read'] },
  })
  t.equal(again.headers['cache-control'], 'no-store', 'the answer with the token is kept by no cache')
  const login = await one.inject({
    method: 'POST',
    url: '/login',
    payload: { email: owner.email, password: owner.password },
  })
  t.equal(login.headers['cache-control'], 'no-store', 'nor is a token pair')
  // RFC 6750 §2.3's way, which the service does not take: refused, and not logged as it came.
  const inQuery = await one.inject({ method: 'GET', url: `/me?access_token=${data.token}` })
  t.equal(inQuery.statusCode, 401, 'a token in the query is not taken')
  const fromMail = await one.inject({ method: 'GET', url: `/password-reset/confirm?token=secret-${data.token}` })
  t.equal(fromMail.statusCode, 405, "a mailed link's token opened by GET")
  t.notOk(
    lines.some((line) => line.includes('secret-')),
    "nor the token of a mailed link, when one is opened by GET (the access log's url has it cut out)",
  )
  t.ok(lines.length > 20, `${lines.length} log lines written`)
  t.notOk(
    lines.some((line) => line.includes(data.token.slice(5))),
    'the token is in no log line, the creation and every use included',
  )
})
