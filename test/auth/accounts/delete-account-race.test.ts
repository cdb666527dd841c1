// deleteCurrentUser racing other requests: every answer is a documented one, never a 500. Writes
// by the account being deleted that wait on its row are 401 SESSION_REVOKED (the author is gone);
// two deletions of one account answer 204 and 401; a user's deletion leaves admins' rows unlocked.
// Steps are ordered, not timed: a transaction of the test's own is held open on PostgreSQL, a
// request is held after its password check (test/helpers/pausing-hasher.ts), or a bounded storm
// of requests runs against a deletion.
import pg from 'pg'
import t from 'tap'
import { build, usingPostgres } from '../../helpers/build.ts'
import { registerAdmin, registerUser, type Account } from '../../helpers/accounts.ts'
import { commentCounts, createComment } from '../../helpers/content.ts'
import { makePausingHasher } from '../../helpers/pausing-hasher.ts'
import { createPost } from '../../helpers/posts.ts'

type App = Awaited<ReturnType<typeof build>>
const pgOnly = usingPostgres ? false : 'needs PostgreSQL: the embedded database runs one transaction at a time'
const deleteAccount = (app: App, user: Account) =>
  app.inject({ method: 'DELETE', url: '/me', headers: user.auth, payload: { currentPassword: user.password } })

/** Polls (a bounded number of times) until a backend waits on a lock while running SQL that names all of `words`. */
async function waitingOnLock(client: pg.Client, words: string[], polls = 400) {
  for (let poll = 0; poll < polls; poll++) {
    const { rows } = await client.query(
      `select count(*)::int as n from pg_stat_activity
       where wait_event_type = 'Lock' and datname = current_database() and query ilike all($1::text[])`,
      [words.map((word) => `%${word}%`)],
    )
    if ((rows[0] as { n: number }).n > 0) return true
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  return false
}

t.test('a post or comment written while its author is being deleted is 401 SESSION_REVOKED', async (t) => {
  const app = await build(t)
  const [leaver, other] = [await registerUser(app, 'leaver'), await registerUser(app, 'other')]
  const theirs = await createPost(app, other, { status: 'published' })
  for (const write of [
    {
      method: 'POST' as const,
      url: '/posts',
      payload: { title: 'Late', body: 'Written while leaving.' },
      table: 'posts',
    },
    { method: 'POST' as const, url: `/posts/${theirs.id}/comments`, payload: { body: 'Late.' }, table: 'comments' },
  ]) {
    const user = await registerUser(app, 'leaver')
    if (usingPostgres) {
      // The deletion holds the author's row; the write's insert waits on it, then finds it gone.
      const held = new pg.Client({ connectionString: process.env.DATABASE_URL })
      const watcher = new pg.Client({ connectionString: process.env.DATABASE_URL })
      await Promise.all([held.connect(), watcher.connect()])
      t.teardown(() => Promise.all([held.end(), watcher.end()]))
      await held.query('begin')
      await held.query('select 1 from users where id = $1 for update', [user.id])
      const answer = app.inject({ method: write.method, url: write.url, headers: user.auth, payload: write.payload })
      t.ok(await waitingOnLock(watcher, ['insert', write.table]), `the ${write.table} insert waits`)
      await held.query('delete from users where id = $1', [user.id])
      await held.query('commit')
      const response = await answer
      t.equal(response.statusCode, 401, `${write.table}: ${response.body}`)
      t.equal(response.json().error?.code, 'SESSION_REVOKED')
    } else {
      await app.services.database.prisma.user.delete({ where: { id: user.id } })
      const response = await app.inject({ ...write, headers: user.auth })
      t.equal(response.json().error?.code, 'SESSION_REVOKED', `${write.table}: refused`)
    }
  }
  t.equal((await deleteAccount(app, leaver)).statusCode, 204)
})

t.test('two deletions of one account at once: 204, then 401 SESSION_REVOKED', async (t) => {
  const hasher = makePausingHasher()
  const app = await build(t, {}, { passwords: hasher.wrap })
  const user = await registerUser(app)
  const pause = hasher.pauseAfterChecking(user.password)
  const first = deleteAccount(app, user)
  await pause.reached
  t.equal((await deleteAccount(app, user)).statusCode, 204, 'the second one deletes the account')
  pause.release()
  const late = await first
  t.equal(late.statusCode, 401, 'the first one, held after its check, finds the session gone')
  t.equal(late.json().error?.code, 'SESSION_REVOKED')
})

t.test("deleting a user's account does not lock the admins' rows", { skip: pgOnly }, async (t) => {
  const app = await build(t)
  const [admin, user] = [await registerAdmin(app), await registerUser(app)]
  // An admin's write in progress: their row is locked until it ends.
  const held = new pg.Client({ connectionString: process.env.DATABASE_URL })
  const watcher = new pg.Client({ connectionString: process.env.DATABASE_URL })
  await Promise.all([held.connect(), watcher.connect()])
  t.teardown(() => Promise.all([held.end(), watcher.end()]))
  await held.query('begin')
  await held.query('select 1 from users where id = $1 for update', [admin.id])
  let answered = false
  const deletion = deleteAccount(app, user).then((response) => ((answered = true), response))
  // Either the deletion answers, or it is seen waiting on a lock (the admin's row).
  let waited = false
  for (let poll = 0; poll < 400 && !answered && !waited; poll++) waited = await waitingOnLock(watcher, ['users'], 1)
  await held.query('rollback')
  t.equal((await deletion).statusCode, 204)
  t.notOk(waited, 'the deletion never waited on the admin’s row')
})

t.test('a storm of writes on the account being deleted and its posts: no 500', { skip: pgOnly }, async (t) => {
  const app = await build(t)
  const others = [await registerUser(app, 'a'), await registerUser(app, 'b')]
  const theirs = await createPost(app, others[0]!, { status: 'published' })
  for (let round = 0; round < 4; round++) {
    const leaver = await registerUser(app, 'leaver')
    const posts = []
    for (let index = 0; index < 4; index++) posts.push(await createPost(app, leaver, { status: 'published' }))
    const leaverComments = []
    for (const post of [...posts, theirs])
      for (let index = 0; index < 2; index++) leaverComments.push(await createComment(app, leaver, post.id))
    // Waves of writes, each waiting for the last, go on until the deletion answers (at most 40).
    let answered = false
    const deletion = deleteAccount(app, leaver).then((response) => ((answered = true), response))
    const responses = []
    for (let wave = 0; wave < 40 && !answered; wave++) {
      const post = posts[wave % 2]!
      const parent = leaverComments[wave % leaverComments.length]!
      responses.push(
        ...(await Promise.all([
          createCommentRaw(app, others[wave % 2]!, parent.postId, { body: `Reply ${wave}`, parentId: parent.id }),
          app.inject({
            method: 'PATCH',
            url: `/posts/${post.id}`,
            headers: leaver.auth,
            payload: { title: `T${wave}` },
          }),
          createCommentRaw(app, leaver, theirs.id, { body: `Mine ${wave}` }),
          createCommentRaw(app, others[1]!, post.id, { body: `On theirs ${wave}` }),
          app.inject({ method: 'POST', url: '/posts', headers: leaver.auth, payload: { title: 'New', body: 'Body.' } }),
          app.inject({ method: 'GET', url: '/me', headers: leaver.auth }),
          app.inject({ method: 'PATCH', url: '/me', headers: leaver.auth, payload: { name: `N${wave}` } }),
          app.inject({ method: 'POST', url: '/refresh', payload: { refreshToken: leaver.refreshToken } }),
        ])),
      )
    }
    responses.push(await deletion)
    const failures = responses.filter((response) => response.statusCode >= 500)
    t.same(
      failures.map((response) => response.body),
      [],
      `round ${round}: no 5xx`,
    )
    t.equal((await deletion).statusCode, 204, `round ${round}: the account is deleted`)
    const counts = await commentCounts(app, theirs.id)
    t.equal(counts.stored, counts.actual, `round ${round}: the commented post's count stays exact`)
  }
})

const createCommentRaw = (app: App, author: Account, postId: string, payload: { body: string; parentId?: string }) =>
  app.inject({ method: 'POST', url: `/posts/${postId}/comments`, headers: author.auth, payload })
