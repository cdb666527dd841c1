// A token never holds more than its owner, now: an admin's `admin` token loses admin at the next
// request once its owner is demoted (on another instance too, on PostgreSQL), and so does what its
// other scopes let an admin do (categories, others' posts); a deleted owner's tokens go with the
// account. Only admins give a token the `admin` scope.
import t from 'tap'
import { build, usingPostgres } from '../../helpers/build.ts'
import { registerAdmin, registerUser } from '../../helpers/accounts.ts'
import { createApiToken } from '../../helpers/api-tokens.ts'
import { createPost } from '../../helpers/posts.ts'
import { createScratchDatabase } from '../../helpers/postgres.ts'

t.test("a demoted owner's admin token loses admin at the next request", async (t) => {
  const env: Record<string, string> = usingPostgres
    ? { DATABASE_URL: await createScratchDatabase(t, 'token_demotion') }
    : {}
  const one = await build(t, env)
  // Demoted through one instance, used through another (on PGlite the same one stands in).
  const two = usingPostgres ? await build(t, env) : one
  const [owner, other, writer] = [await registerAdmin(one), await registerAdmin(one), await registerUser(one)]
  const token = await createApiToken(one, owner, { scopes: ['admin', 'content:write'] })
  t.equal(token.expiresAt, null, "an admin's token made without expiresAt never expires")
  const othersPost = await createPost(one, writer, { status: 'published' })
  const listUsers = () => two.inject({ method: 'GET', url: '/users', headers: token.auth })
  const newCategory = () =>
    two.inject({ method: 'POST', url: '/categories', headers: token.auth, payload: { name: `C ${Math.random()}` } })
  const editOthersPost = () =>
    two.inject({ method: 'PATCH', url: `/posts/${othersPost.id}`, headers: token.auth, payload: { title: 'Edited' } })
  const setRole = (role: 'user' | 'admin') =>
    one.inject({ method: 'PATCH', url: `/users/${owner.id}`, headers: other.auth, payload: { role } })

  t.equal((await listUsers()).statusCode, 200, 'admin scope, admin owner: listUsers')
  t.equal((await newCategory()).statusCode, 201, 'content:write, admin owner: createCategory')
  t.equal((await editOthersPost()).statusCode, 200, "content:write, admin owner: another user's post")

  t.equal((await setRole('user')).statusCode, 200, 'demoted')
  for (const [what, answer] of [
    ['listUsers', await listUsers()],
    ['createCategory', await newCategory()],
    ["another user's post", await editOthersPost()],
  ] as const) {
    t.equal(answer.statusCode, 403, `${what}: refused at the next request`)
    t.equal(answer.json().error.code, 'FORBIDDEN', `${what}: for the role, not the scope`)
  }
  const own = await two.inject({
    method: 'POST',
    url: '/posts',
    headers: token.auth,
    payload: { title: 'Still mine to write', body: 'As a user.' },
  })
  t.equal(own.statusCode, 201, 'what a user may do, it still may')

  t.equal((await setRole('admin')).statusCode, 200, 'promoted again')
  t.equal((await listUsers()).statusCode, 200, 'the role is read on every request, both ways')
})

t.test('only admins give a token the admin scope', async (t) => {
  const app = await build(t)
  const user = await registerUser(app)
  const refused = await app.inject({
    method: 'POST',
    url: '/me/tokens',
    headers: user.auth,
    payload: { name: 'Too much', scopes: ['content:read', 'admin'] },
  })
  t.equal(refused.statusCode, 403)
  t.match(refused.json().error, { code: 'FORBIDDEN', details: [{ path: '/body/scopes/1' }] })
  t.same((await app.inject({ method: 'GET', url: '/me/tokens', headers: user.auth })).json().data, [], 'none made')
})

t.test("a deleted owner's tokens go with the account", async (t) => {
  const app = await build(t)
  const leaver = await registerUser(app, 'leaver')
  const tokens = [await createApiToken(app, leaver), await createApiToken(app, leaver, { scopes: ['account:read'] })]
  t.equal((await app.inject({ method: 'GET', url: '/me', headers: tokens[1]!.auth })).statusCode, 200)
  const deleted = await app.inject({
    method: 'DELETE',
    url: '/me',
    headers: leaver.auth,
    payload: { currentPassword: leaver.password },
  })
  t.equal(deleted.statusCode, 204)
  const after = await app.inject({ method: 'GET', url: '/me', headers: tokens[1]!.auth })
  t.equal(after.statusCode, 401)
  t.equal(after.json().error.code, 'API_TOKEN_INVALID')
  const left = await app.services.database.prisma.apiToken.count({ where: { userId: leaver.id } })
  t.equal(left, 0, 'no row of theirs is left')
})
