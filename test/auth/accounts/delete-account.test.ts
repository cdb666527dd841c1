// deleteCurrentUser: the account goes with everything it wrote (its posts, with their comments and
// thumbnails, and its comments on other posts, with the replies to them); its tokens and password
// stop working at once; the posts it commented on keep an exact count; caches forget it all. A
// wrong current password is refused and counted as on PATCH /me; the only admin cannot leave.
// Across instances: test/auth/sessions/fleet.test.ts; accounts with many comments: delete-account-batches.test.ts.
import t from 'tap'
import { loadSpec } from '../../../src/spec.ts'
import { build, usingPostgres } from '../../helpers/build.ts'
import { login, registerAdmin, registerUser, type Account } from '../../helpers/accounts.ts'
import { commentCounts, createComment } from '../../helpers/content.ts'
import { eventually, keysOf, solidImage, uploadThumbnail } from '../../helpers/images.ts'
import { createScratchDatabase } from '../../helpers/postgres.ts'
import { createPost } from '../../helpers/posts.ts'

type App = Awaited<ReturnType<typeof build>>
const deleteAccount = (app: App, user: Account, currentPassword = user.password, remoteAddress?: string) =>
  app.inject({ method: 'DELETE', url: '/me', headers: user.auth, payload: { currentPassword }, remoteAddress })
const getPost = (app: App, id: string) => app.inject({ method: 'GET', url: `/posts/${id}` })
const listedIds = async (app: App, query = '') =>
  ((await app.inject({ method: 'GET', url: `/posts${query}` })).json().data as { id: string }[]).map((post) => post.id)

t.test('deleting an account takes its sessions, posts and comments; caches forget them', async (t) => {
  const app = await build(t, {}, { jobs: { pollingIntervalSeconds: 0.5 } })
  const [leaver, other] = [await registerUser(app, 'leaver'), await registerUser(app, 'other')]
  const second = (await login(app, leaver.email, leaver.password)).json().data
  const own = await createPost(app, leaver, { status: 'published' })
  const draft = await createPost(app, leaver)
  const upload = await uploadThumbnail(app, own.id, leaver.auth, await solidImage(640, 480, 'png', '#3a5f7d'))
  t.equal(upload.statusCode, 200)
  const images = keysOf(upload.json().data)
  const theirs = await createPost(app, other, { status: 'published' })
  const onOwn = await createComment(app, other, own.id, { body: 'On the leaver’s post.' })
  const leaverComment = await createComment(app, leaver, theirs.id, { body: 'By the leaver.' })
  await createComment(app, other, theirs.id, { body: 'A reply to the leaver.', parentId: leaverComment.id })
  const stays = await createComment(app, other, theirs.id, { body: 'Stays.' })
  // Reads that fill the post cache and the list cache first: both must forget.
  t.equal((await getPost(app, own.id)).statusCode, 200)
  t.equal((await getPost(app, theirs.id)).json().data.commentCount, 3)
  t.ok((await listedIds(app, `?authorId=${leaver.id}`)).includes(own.id))
  t.ok((await listedIds(app, `?authorId=${leaver.id}`)).includes(own.id), 'served from the list cache')

  const deleted = await deleteAccount(app, leaver)
  t.equal(deleted.statusCode, 204)
  t.equal(deleted.body, '', 'no body')

  for (const [name, accessToken] of [
    ['the token used', leaver.accessToken],
    ['another session’s', second.accessToken],
  ]) {
    const me = await app.inject({ method: 'GET', url: '/me', headers: { authorization: `Bearer ${accessToken}` } })
    t.equal(me.json().error?.code, 'SESSION_REVOKED', `${name} access token is refused`)
  }
  for (const refreshToken of [leaver.refreshToken, second.refreshToken])
    t.equal(
      (await app.inject({ method: 'POST', url: '/refresh', payload: { refreshToken } })).json().error?.code,
      'REFRESH_TOKEN_INVALID',
      'refresh tokens are refused',
    )
  t.equal((await login(app, leaver.email, leaver.password)).json().error?.code, 'INVALID_CREDENTIALS', 'no login')

  t.equal((await getPost(app, own.id)).statusCode, 404, 'its post is gone, though it was cached')
  t.equal((await getPost(app, draft.id)).statusCode, 404)
  t.notOk((await listedIds(app, `?authorId=${leaver.id}`)).includes(own.id), 'and gone from the cached list')
  t.notOk((await listedIds(app)).includes(own.id), 'and from the front page')
  const { prisma } = app.services.database
  t.equal(await prisma.comment.count({ where: { id: onOwn.id } }), 0, 'comments on its posts went with them')
  const remaining = (await app.inject({ method: 'GET', url: `/posts/${theirs.id}/comments` })).json().data as {
    id: string
  }[]
  t.same(
    remaining.map((comment) => comment.id),
    [stays.id],
    'its comment on another post went, with the reply to it',
  )
  t.equal((await getPost(app, theirs.id)).json().data.commentCount, 1, 'the cached count moved')
  t.same(await commentCounts(app, theirs.id), { stored: 1, actual: 1 }, 'the stored count is exact')
  t.equal(await prisma.session.count({ where: { userId: leaver.id } }), 0, 'its sessions are gone')
  const statusOf = async (key: string) => (await app.inject({ method: 'GET', url: `/images/${key}` })).statusCode
  t.ok(
    await eventually(async () => (await Promise.all(images.map(statusOf))).every((status) => status === 404)),
    'its thumbnail images are swept',
  )

  const again = await registerUser(app, 'again', leaver.email)
  t.not(again.id, leaver.id, 'the address may register again, as a new account')
})

t.test('deleting an account lowers commentCount by its published comments only', async (t) => {
  const app = await build(t)
  const [leaver, other, admin] = [await registerUser(app, 'leaver'), await registerUser(app), await registerAdmin(app)]
  const moderate = async (id: string, status: string) =>
    t.equal(
      (await app.inject({ method: 'PATCH', url: `/comments/${id}/status`, headers: admin.auth, payload: { status } }))
        .statusCode,
      200,
      `marked ${status}`,
    )
  const post = await createPost(app, other, { status: 'published' })
  const counted = await createComment(app, leaver, post.id)
  // A reply of someone else's, hidden: it goes with the leaver's comment but was never counted.
  await moderate((await createComment(app, other, post.id, { parentId: counted.id })).id, 'hidden')
  for (const status of ['pending', 'hidden', 'spam'])
    await moderate((await createComment(app, leaver, post.id)).id, status)
  await createComment(app, other, post.id)
  t.same(await commentCounts(app, post.id), { stored: 2, actual: 2 }, 'two published: one of each')

  t.equal((await deleteAccount(app, leaver)).statusCode, 204)
  t.equal(await app.services.database.prisma.comment.count({ where: { authorId: leaver.id } }), 0, 'all five went')
  t.same(await commentCounts(app, post.id), { stored: 1, actual: 1 }, 'the count lost the one published, no more')
  t.equal((await getPost(app, post.id)).json().data.commentCount, 1, 'and so does the post')
})

t.test('a wrong current password deletes nothing and counts against the login allowance', async (t) => {
  const app = await build(t, { LOGIN_LIMIT_PER_ACCOUNT_ADDRESS: '2', LOGIN_LIMIT_PER_ACCOUNT: '100' })
  const user = await registerUser(app)
  const wrong = await deleteAccount(app, user, 'not the password')
  t.equal(wrong.statusCode, 403)
  t.same(wrong.json().error, {
    code: 'CURRENT_PASSWORD_INCORRECT',
    message: 'The current password is wrong.',
    details: [{ path: '/body/currentPassword', message: 'does not match the current password' }],
  })
  t.equal((await login(app, user.email, 'another wrong one')).statusCode, 401, 'a failed login counts the same')
  const limited = await deleteAccount(app, user)
  t.equal(limited.statusCode, 429, 'the allowance of 2 is spent: even the right password is refused')
  t.equal(limited.json().error.code, 'RATE_LIMITED')
  t.ok(Number(limited.headers['retry-after']) > 0, 'with Retry-After')
  t.equal((await login(app, user.email, user.password)).statusCode, 429, 'and login, which shares the count')
  t.equal((await app.inject({ method: 'GET', url: '/me', headers: user.auth })).statusCode, 200, 'nothing deleted')
  t.equal(
    (await app.inject({ method: 'DELETE', url: '/me', headers: user.auth, payload: {} })).statusCode,
    400,
    'currentPassword is required',
  )
})

t.test('every DELETE /me counts against the address, as a login attempt does', async (t) => {
  const app = await build(t, { LOGIN_LIMIT_PER_ADDRESS: '2' })
  const remoteAddress = `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.41`
  const [a, b, c] = [await registerUser(app), await registerUser(app), await registerUser(app)]
  t.equal((await deleteAccount(app, a, 'wrong password', remoteAddress)).statusCode, 403)
  t.equal((await deleteAccount(app, b, b.password, remoteAddress)).statusCode, 204, 'a right one counts too')
  t.equal((await deleteAccount(app, c, c.password, remoteAddress)).statusCode, 429, 'the address is spent')
  t.equal((await deleteAccount(app, c, c.password, '10.252.0.41')).statusCode, 204, 'another address is not')
})

t.test('the only admin cannot delete their account; once another admin exists, they can', async (t) => {
  // A database of its own on PostgreSQL, where other test files make admins.
  const app = await build(t, usingPostgres ? { DATABASE_URL: await createScratchDatabase(t, 'last_admin') } : {})
  const admin = await registerAdmin(app)
  const refused = await deleteAccount(app, admin)
  t.equal(refused.statusCode, 409)
  const example = (
    loadSpec() as unknown as {
      components: {
        responses: { Conflict: { content: Record<string, { examples: Record<string, { value: unknown }> }> } }
      }
    }
  ).components.responses.Conflict.content['application/json']!.examples.lastAdmin!.value as { error: unknown }
  t.same(refused.json().error, example.error, 'the answer the spec’s example shows')
  t.equal((await app.inject({ method: 'GET', url: '/me', headers: admin.auth })).statusCode, 200, 'still there')
  t.equal(
    (await login(app, admin.email, admin.password)).statusCode,
    200,
    'the right password was not counted as wrong',
  )

  const another = await registerAdmin(app)
  t.equal((await deleteAccount(app, admin)).statusCode, 204, 'with another admin, the admin may leave')
  t.equal((await deleteAccount(app, another)).statusCode, 409, 'and the one left is the only admin')
  const user = await registerUser(app)
  t.equal((await deleteAccount(app, user)).statusCode, 204, 'users leave whatever the admins')
})
