// What only a person signed in with a password may do refuses every API token, even an admin's
// holding every scope, with valid requests that would succeed with the owner's session: changing
// the email or password, deleting the account, the sessions, logout, role changes, the tokens
// themselves. 403 API_TOKEN_NOT_ALLOWED, and nothing changed. On PostgreSQL the refusal is counted
// at no statement: the token is turned away by its form, before any read.
import type { InjectOptions } from 'fastify'
import t from 'tap'
import { build, usingPostgres } from '../../helpers/build.ts'
import { login, registerAdmin, registerUser } from '../../helpers/accounts.ts'
import { createApiToken, HUMANS_ONLY, SCOPES } from '../../helpers/api-tokens.ts'
import { statementsOf } from '../../helpers/statements.ts'

t.test('credential, session, role and token operations refuse API tokens, and nothing changes', async (t) => {
  const app = await build(t)
  const [owner, other] = [await registerAdmin(app), await registerUser(app)]
  const token = await createApiToken(app, owner, { scopes: [...SCOPES] })
  const { prisma } = app.services.database
  const sessionId = (await prisma.session.findFirstOrThrow({ where: { userId: owner.id } })).id
  const othersToken = await createApiToken(app, other)
  const tried: Record<string, InjectOptions> = {
    updateCurrentUser: {
      method: 'PATCH',
      url: '/me',
      payload: { currentPassword: owner.password, password: 'a-new-password-taken-over', name: 'Taken over' },
    },
    deleteCurrentUser: { method: 'DELETE', url: '/me', payload: { currentPassword: owner.password } },
    listSessions: { method: 'GET', url: '/me/sessions' },
    revokeSession: { method: 'DELETE', url: `/me/sessions/${sessionId}` },
    logout: { method: 'POST', url: '/logout', payload: { allSessions: true } },
    requestEmailVerification: { method: 'POST', url: '/email-verification' },
    updateUser: { method: 'PATCH', url: `/users/${other.id}`, payload: { role: 'admin' } },
    listApiTokens: { method: 'GET', url: '/me/tokens' },
    createApiToken: { method: 'POST', url: '/me/tokens', payload: { name: 'Another', scopes: ['admin'] } },
    revokeApiToken: { method: 'DELETE', url: `/me/tokens/${token.id}` },
    listAllApiTokens: { method: 'GET', url: '/tokens' },
    revokeAnyApiToken: { method: 'DELETE', url: `/tokens/${othersToken.id}` },
  }
  t.same(Object.keys(tried).sort(), Object.keys(HUMANS_ONLY).sort(), 'every humans-only operation is tried')

  for (const [id, request] of Object.entries(tried)) {
    const send = () => app.inject({ ...request, headers: token.auth })
    const { count } = usingPostgres ? await statementsOf(send) : { count: 0 }
    const answer = await send()
    t.equal(answer.statusCode, 403, id)
    t.equal(answer.json().error.code, 'API_TOKEN_NOT_ALLOWED', id)
    t.equal(answer.headers['www-authenticate'], 'Bearer error="insufficient_scope"', id)
    t.equal(count, 0, `${id}: refused before any statement`)
  }

  t.equal((await login(app, owner.email, owner.password)).statusCode, 200, 'the password is the same')
  const me = (await app.inject({ method: 'GET', url: '/me', headers: owner.auth })).json().data
  t.match(me, { name: 'Test admin', role: 'admin' }, 'the account is there, its name unchanged; the session lives')
  t.equal((await prisma.user.findUniqueOrThrow({ where: { id: other.id } })).role, 'user', 'no one was promoted')
  const tokens = await prisma.apiToken.findMany({ where: { userId: { in: [owner.id, other.id] } } })
  t.same(tokens.map((row) => row.id).sort(), [token.id, othersToken.id].sort(), 'no token made, none revoked')
  t.equal((await app.inject({ method: 'GET', url: '/users', headers: token.auth })).statusCode, 200, 'the token works')
})
