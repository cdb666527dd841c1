// Journeys of the `system`, `auth` and `users` tags through the typed client on a real port.
import t from 'tap'
import { loadSpec } from '../../src/spec.ts'
import { serve, signUp } from '../helpers/client.ts'

t.test('typed client journeys: system, auth, users', async (t) => {
  const { app, client } = await serve(t)

  t.test('system: liveness with the contract version, readiness', async (t) => {
    const ping = await client().GET('/ping')
    t.equal(ping.data?.data.version, loadSpec().info.version)
    t.equal(ping.response.headers.get('api-version'), loadSpec().info.version)
    const health = await client().GET('/health')
    t.equal(health.data?.data.database.status, 'up')
  })

  t.test('auth: register, log in, refresh (rotating), reuse refused, log out', async (t) => {
    const account = await signUp(client, 'auth')
    const login = await client().POST('/login', { body: { email: account.email, password: account.password } })
    t.equal(login.data?.data.user.id, account.user.id)
    const first = login.data!.data
    const refreshed = await client().POST('/refresh', { body: { refreshToken: first.refreshToken } })
    t.not(refreshed.data?.data.refreshToken, first.refreshToken, 'a new refresh token')
    const reused = await client().POST('/refresh', { body: { refreshToken: first.refreshToken } })
    t.equal(reused.error?.error.code, 'REFRESH_TOKEN_INVALID')
    const wrong = await client().POST('/login', { body: { email: account.email, password: 'not-the-password' } })
    t.equal(wrong.error?.error.code, 'INVALID_CREDENTIALS')

    const session = client(account.accessToken)
    t.equal((await session.POST('/logout', { body: { allSessions: false } })).response.status, 204)
    t.equal((await session.GET('/me')).error?.error.code, 'SESSION_REVOKED')
  })

  t.test('users: read and rename oneself; an admin lists users and promotes one', async (t) => {
    const user = await signUp(client, 'user')
    t.equal((await user.api.GET('/me')).data?.data.email, user.email)
    t.equal((await user.api.PATCH('/me', { body: { name: 'Renamed by client' } })).data?.data.name, 'Renamed by client')
    t.equal((await user.api.GET('/users')).error?.error.code, 'FORBIDDEN')

    const admin = await signUp(client, 'admin')
    // The first admin is made by operators, not through the API (npm run user:admin).
    await app.services.auth.ensureAdmin(admin.email, null)
    const page = await admin.api.GET('/users', { params: { query: { limit: 2 } } })
    t.equal(page.data?.data.length, 2)
    t.type(page.data?.meta.page.nextCursor, 'string')
    const promoted = await admin.api.PATCH('/users/{id}', {
      params: { path: { id: user.user.id } },
      body: { role: 'admin' },
    })
    t.equal(promoted.data?.data.role, 'admin')
    t.equal((await user.api.GET('/me')).data?.data.role, 'admin', 'the new role holds at once')
  })

  t.test('users: list and revoke sessions, delete the account', async (t) => {
    const user = await signUp(client, 'leaver')
    const other = await client().POST('/login', { body: { email: user.email, password: user.password } })
    const sessions = await user.api.GET('/me/sessions', { params: { query: { limit: 10 } } })
    t.equal(sessions.data?.data.length, 2)
    const notCurrent = sessions.data!.data.find((session) => !session.current)!
    const revoked = await user.api.DELETE('/me/sessions/{id}', { params: { path: { id: notCurrent.id } } })
    t.equal(revoked.response.status, 204)
    const stale = client(other.data!.data.accessToken)
    t.equal((await stale.GET('/me')).error?.error.code, 'SESSION_REVOKED')
    const again = await user.api.DELETE('/me/sessions/{id}', { params: { path: { id: notCurrent.id } } })
    t.equal(again.error?.error.code, 'SESSION_NOT_FOUND')

    const wrong = await user.api.DELETE('/me', { body: { currentPassword: 'not-the-password' } })
    t.equal(wrong.error?.error.code, 'CURRENT_PASSWORD_INCORRECT')
    t.equal((await user.api.DELETE('/me', { body: { currentPassword: user.password } })).response.status, 204)
    t.equal((await user.api.GET('/me')).error?.error.code, 'SESSION_REVOKED')
  })
})
