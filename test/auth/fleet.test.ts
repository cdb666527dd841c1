// Two instances on one PostgreSQL: a logout or a role change through one is honoured by the other
// on the very next request, because every request checks its session in the shared database.
import t from 'tap'
import { build, usingPostgres } from '../helpers/build.ts'
import { login, registerAdmin, registerUser } from '../helpers/accounts.ts'

const skip = usingPostgres ? false : 'needs PostgreSQL: the embedded database belongs to one process (set DATABASE_URL)'

t.test('logout and role changes reach every instance at once', { skip }, async (t) => {
  const [one, two] = [await build(t), await build(t)]
  const user = await registerUser(one)
  const second = (await login(two, user.email, user.password)).json().data
  t.equal((await two.inject({ method: 'GET', url: '/me', headers: user.auth })).statusCode, 200, 'a token from instance 1 works on instance 2')

  t.equal((await one.inject({ method: 'POST', url: '/logout', headers: user.auth })).statusCode, 204)
  const after = await two.inject({ method: 'GET', url: '/me', headers: user.auth })
  t.equal(after.statusCode, 401, 'logged out through instance 1, refused by instance 2')
  t.equal(after.json().error.code, 'SESSION_REVOKED')
  const refreshed = await two.inject({ method: 'POST', url: '/refresh', payload: { refreshToken: user.refreshToken } })
  t.equal(refreshed.statusCode, 401, 'its refresh token too')
  t.equal((await two.inject({ method: 'GET', url: '/me', headers: { authorization: `Bearer ${second.accessToken}` } })).statusCode, 200, 'the other session lives on')

  const admin = await registerAdmin(two)
  t.equal((await one.inject({ method: 'GET', url: '/users', headers: admin.auth })).statusCode, 200)
  const otherAdmin = await registerAdmin(one)
  t.equal((await one.inject({ method: 'PATCH', url: `/users/${admin.id}`, headers: otherAdmin.auth, payload: { role: 'user' } })).statusCode, 200)
  t.equal((await two.inject({ method: 'GET', url: '/users', headers: admin.auth })).statusCode, 403, 'demoted through instance 1, refused by instance 2')
})
