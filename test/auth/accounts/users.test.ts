// The signed-in user's own account, and what admins may do to others.
import t from 'tap'
import { build } from '../../helpers/build.ts'
import { login, registerAdmin, registerUser } from '../../helpers/accounts.ts'

t.test('roles: users are refused user administration, admins are not, and a role change applies at once', async (t) => {
  const app = await build(t)
  const user = await registerUser(app)
  const admin = await registerAdmin(app)
  const otherAdmin = await registerAdmin(app)

  t.equal((await app.inject({ method: 'GET', url: '/users', headers: user.auth })).statusCode, 403)
  const refused = await app.inject({
    method: 'PATCH',
    url: `/users/${admin.id}`,
    headers: user.auth,
    payload: { role: 'user' },
  })
  t.equal(refused.statusCode, 403)
  t.equal(refused.json().error.code, 'FORBIDDEN')

  const list = await app.inject({ method: 'GET', url: '/users?limit=2', headers: admin.auth })
  t.equal(list.statusCode, 200)
  t.equal(list.json().data.length, 2)
  t.match(list.json().meta.page, { limit: 2, nextCursor: String })
  t.notMatch(list.body, /passwordHash|\$2[aby]\$/)
  const next = await app.inject({
    method: 'GET',
    url: `/users?limit=2&cursor=${list.json().meta.page.nextCursor}`,
    headers: admin.auth,
  })
  t.equal(next.statusCode, 200)
  const firstIds = list.json().data.map((u: { id: string }) => u.id)
  t.notOk(
    next.json().data.some((u: { id: string }) => firstIds.includes(u.id)),
    'pages do not overlap',
  )
  t.equal(
    (await app.inject({ method: 'GET', url: '/users?cursor=bm9wZQ', headers: admin.auth })).statusCode,
    400,
    'a forged cursor is 400',
  )

  const admins = await app.inject({ method: 'GET', url: '/users?role=admin&limit=100', headers: admin.auth })
  t.ok(admins.json().data.every((u: { role: string }) => u.role === 'admin'))

  const promoted = await app.inject({
    method: 'PATCH',
    url: `/users/${user.id}`,
    headers: admin.auth,
    payload: { role: 'admin' },
  })
  t.equal(promoted.statusCode, 200)
  t.equal(promoted.json().data.role, 'admin')
  t.equal(
    (await app.inject({ method: 'GET', url: '/users', headers: user.auth })).statusCode,
    200,
    'promoted: the same token now may',
  )

  const demoted = await app.inject({
    method: 'PATCH',
    url: `/users/${otherAdmin.id}`,
    headers: admin.auth,
    payload: { role: 'user' },
  })
  t.equal(demoted.statusCode, 200)
  t.equal(
    (await app.inject({ method: 'GET', url: '/users', headers: otherAdmin.auth })).statusCode,
    403,
    'demoted: refused on the next request',
  )

  const self = await app.inject({
    method: 'PATCH',
    url: `/users/${admin.id}`,
    headers: admin.auth,
    payload: { role: 'user' },
  })
  t.equal(self.statusCode, 403, 'an admin cannot change their own role')
  const missing = await app.inject({
    method: 'PATCH',
    url: '/users/0192f7c4-5a2b-7c3d-8e4f-123456789abc',
    headers: admin.auth,
    payload: { role: 'user' },
  })
  t.equal(missing.statusCode, 404)
  t.equal(missing.json().error.code, 'USER_NOT_FOUND')
  const extra = await app.inject({
    method: 'PATCH',
    url: `/users/${user.id}`,
    headers: admin.auth,
    payload: { role: 'user', email: 'x@example.com' },
  })
  t.equal(extra.statusCode, 400, 'fields an admin may not set are refused')
})

t.test('updateCurrentUser: name, and a password change that ends the other sessions', async (t) => {
  const app = await build(t)
  const user = await registerUser(app)
  const other = (await login(app, user.email, user.password)).json().data

  const renamed = await app.inject({ method: 'PATCH', url: '/me', headers: user.auth, payload: { name: 'New Name' } })
  t.equal(renamed.statusCode, 200)
  t.equal(renamed.json().data.name, 'New Name')

  const noCurrent = await app.inject({
    method: 'PATCH',
    url: '/me',
    headers: user.auth,
    payload: { password: 'brand new password' },
  })
  t.equal(noCurrent.statusCode, 400, 'a new password needs the current one')
  const wrongCurrent = await app.inject({
    method: 'PATCH',
    url: '/me',
    headers: user.auth,
    payload: { password: 'brand new password', currentPassword: 'wrong password' },
  })
  t.equal(wrongCurrent.statusCode, 403)
  t.equal(wrongCurrent.json().error.code, 'CURRENT_PASSWORD_INCORRECT')
  const role = await app.inject({ method: 'PATCH', url: '/me', headers: user.auth, payload: { role: 'admin' } })
  t.equal(role.statusCode, 400, 'nobody promotes themselves')

  const changed = await app.inject({
    method: 'PATCH',
    url: '/me',
    headers: user.auth,
    payload: { password: 'brand new password', currentPassword: user.password },
  })
  t.equal(changed.statusCode, 200)
  t.equal((await app.inject({ method: 'GET', url: '/me', headers: user.auth })).statusCode, 200, 'this session goes on')
  t.equal(
    (await app.inject({ method: 'GET', url: '/me', headers: { authorization: `Bearer ${other.accessToken}` } }))
      .statusCode,
    401,
    'the other session ended',
  )
  t.equal((await login(app, user.email, user.password)).statusCode, 401, 'the old password is gone')
  t.equal((await login(app, user.email, 'brand new password')).statusCode, 200)
})

t.test('the first admin comes from ADMIN_EMAIL and ADMIN_PASSWORD, idempotently', async (t) => {
  const email = `boot-${Date.now()}-${Math.random().toString(36).slice(2)}@example.com`
  const env = { ADMIN_EMAIL: email, ADMIN_PASSWORD: 'bootstrap password' }
  const app = await build(t, env)
  const signedIn = await login(app, email, 'bootstrap password')
  t.equal(signedIn.statusCode, 200)
  t.equal(signedIn.json().data.user.role, 'admin')
  t.equal(
    (
      await app.inject({
        method: 'GET',
        url: '/users',
        headers: { authorization: `Bearer ${signedIn.json().data.accessToken}` },
      })
    ).statusCode,
    200,
  )
  await app.services.auth.ensureAdmin(email, 'bootstrap password')
  t.equal((await login(app, email, 'bootstrap password')).statusCode, 200, 'a second start changes nothing')
})

t.test('registration never makes an admin', async (t) => {
  const app = await build(t)
  const response = await app.inject({
    method: 'POST',
    url: '/register',
    payload: { email: `r-${Date.now()}@example.com`, password: 'long enough password', name: 'R', role: 'admin' },
  })
  t.equal(response.statusCode, 400)
})
