// Sessions and account deletion with two instances on one PostgreSQL, as behind a load balancer:
// a session revoked through one is refused by the other at once, and a deleted account's posts
// vanish from both instances' post and list caches, while the posts it commented on show their
// new count on both.
import t from 'tap'
import { build, usingPostgres } from '../../helpers/build.ts'
import { login, registerUser } from '../../helpers/accounts.ts'
import { createComment } from '../../helpers/content.ts'
import { createScratchDatabase } from '../../helpers/postgres.ts'
import { createPost } from '../../helpers/posts.ts'
import { eventually } from '../../helpers/images.ts'

type App = Awaited<ReturnType<typeof build>>
const skip = usingPostgres ? false : 'needs PostgreSQL: the embedded database belongs to one process (set DATABASE_URL)'
const bearer = (accessToken: string) => ({ authorization: `Bearer ${accessToken}` })
const sidOf = (accessToken: string) =>
  (JSON.parse(Buffer.from(accessToken.split('.')[1]!, 'base64url').toString('utf8')) as { sid: string }).sid
/**
 * A post as `app` serves it: its status and comment count. The instance that wrote sees its change
 * at once; another instance's post cache hears of it by NOTIFY, which is eventual, so the checks
 * of another instance's cache wait (bounded) for it.
 */
const postOn = async (app: App, id: string) => {
  const response = await app.inject({ method: 'GET', url: `/posts/${id}` })
  return { status: response.statusCode, commentCount: response.json().data?.commentCount as number | undefined }
}
const settles = (app: App, id: string, expected: { status: number; commentCount?: number }) =>
  eventually(async () => {
    const seen = await postOn(app, id)
    return seen.status === expected.status && seen.commentCount === expected.commentCount
  })
const frontPage = async (app: App) =>
  ((await app.inject({ method: 'GET', url: '/posts' })).json().data as { id: string }[]).map((post) => post.id)

t.test('a session revoked through one instance is refused by the other at once', { skip }, async (t) => {
  const [one, two] = [await build(t), await build(t)]
  const user = await registerUser(one)
  const phone = (await login(two, user.email, user.password)).json().data
  t.equal((await two.inject({ method: 'GET', url: '/me', headers: bearer(phone.accessToken) })).statusCode, 200)
  t.equal(
    (await one.inject({ method: 'DELETE', url: `/me/sessions/${sidOf(phone.accessToken)}`, headers: user.auth }))
      .statusCode,
    204,
    'revoked through instance 1',
  )
  const refused = await two.inject({ method: 'GET', url: '/me', headers: bearer(phone.accessToken) })
  t.equal(refused.json().error?.code, 'SESSION_REVOKED', 'its access token is refused by instance 2')
  const refresh = await two.inject({ method: 'POST', url: '/refresh', payload: { refreshToken: phone.refreshToken } })
  t.equal(refresh.json().error?.code, 'REFRESH_TOKEN_INVALID', 'and its refresh token')
  t.equal((await two.inject({ method: 'GET', url: '/me', headers: user.auth })).statusCode, 200, 'the other lives on')
})

t.test('a deleted account’s posts vanish from both instances’ caches at once', { skip }, async (t) => {
  // A database of their own: the front page must be these posts, not other test files'.
  const env = { DATABASE_URL: await createScratchDatabase(t, 'fleet_delete') }
  const [one, two] = [await build(t, env), await build(t, env)]
  const [leaver, other] = [await registerUser(one, 'leaver'), await registerUser(one, 'other')]
  const own = await createPost(one, leaver, { status: 'published' })
  const theirs = await createPost(one, other, { status: 'published' })
  await createComment(one, leaver, theirs.id)
  for (const app of [one, two]) {
    t.equal((await app.inject({ method: 'GET', url: `/posts/${own.id}` })).statusCode, 200)
    t.equal((await app.inject({ method: 'GET', url: `/posts/${theirs.id}` })).json().data.commentCount, 1)
    t.ok((await frontPage(app)).includes(own.id))
  }
  t.equal(
    (
      await one.inject({
        method: 'DELETE',
        url: '/me',
        headers: leaver.auth,
        payload: { currentPassword: leaver.password },
      })
    ).statusCode,
    204,
  )
  // Instance 1 answered the deletion: its own cache forgot at once.
  t.equal((await one.inject({ method: 'GET', url: `/posts/${own.id}` })).statusCode, 404, 'instance 1: post gone')
  t.equal((await postOn(one, theirs.id)).commentCount, 0, 'instance 1: the commented post shows its new count')
  t.ok(await settles(two, own.id, { status: 404 }), 'instance 2: post gone, once the notice arrived')
  t.ok(await settles(two, theirs.id, { status: 200, commentCount: 0 }), 'instance 2: the new count, likewise')
  for (const [name, app] of [
    ['instance 1', one],
    ['instance 2', two],
  ] as const) {
    // Lists are fresh at once everywhere: the list generation moved in the deletion's wake.
    t.same(await frontPage(app), [theirs.id], `${name}: gone from the front page`)
    t.equal(
      (await app.inject({ method: 'GET', url: '/me', headers: leaver.auth })).json().error?.code,
      'SESSION_REVOKED',
      `${name}: its token is refused`,
    )
  }
})

t.test('comments on more posts than are named one by one: both instances forget everything', { skip }, async (t) => {
  const [one, two] = [await build(t), await build(t)]
  const [leaver, other] = [await registerUser(one, 'leaver'), await registerUser(one, 'other')]
  // One past the number of posts named one by one (DELETED_ACCOUNT_POSTS_NAMED in src/services/accounts.ts).
  const posts = []
  for (let index = 0; index < 51; index++) {
    const post = await createPost(one, other, { status: 'published' })
    await createComment(one, leaver, post.id)
    posts.push(post)
  }
  const [first, last] = [posts[0]!, posts.at(-1)!]
  for (const app of [one, two])
    for (const post of [first, last])
      t.equal((await app.inject({ method: 'GET', url: `/posts/${post.id}` })).json().data.commentCount, 1)
  const deleted = await two.inject({
    method: 'DELETE',
    url: '/me',
    headers: leaver.auth,
    payload: { currentPassword: leaver.password },
  })
  t.equal(deleted.statusCode, 204)
  for (const post of [first, last]) {
    t.equal((await postOn(two, post.id)).commentCount, 0, 'instance 2 (which deleted): the new count at once')
    t.ok(await settles(one, post.id, { status: 200, commentCount: 0 }), 'instance 1: the new count, once notified')
  }
})
