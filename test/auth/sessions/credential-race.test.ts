// A password check and the write that trusts it are one compare-and-set on the credentials: what a
// request verified must still be the account's password when it starts a session (login) or puts
// a new password in place (PATCH /me). Otherwise a request in flight when the operator takes a
// pre-registered account over (ADMIN_EMAIL, npm run user:admin) or when its owner changes the
// password undoes that: the old password back in place, or a live session started with it.
// The requests are ordered, not timed: the first one is held right after its password check
// (test/helpers/pausing-hasher.ts), and on PostgreSQL a takeover's transaction is held open.
import pg from 'pg'
import t, { type Test } from 'tap'
import { build, usingPostgres } from '../../helpers/build.ts'
import { login, registerUser, uniqueEmail } from '../../helpers/accounts.ts'
import { makePausingHasher } from '../../helpers/pausing-hasher.ts'

const OPERATOR_PASSWORD = 'the operator password'

async function setUp(t: Test) {
  const hasher = makePausingHasher()
  const app = await build(t, {}, { passwords: hasher.wrap })
  const email = uniqueEmail('ops')
  const squatter = await registerUser(app, 'squatter', email)
  const takeOver = async () =>
    t.equal(
      (await app.services.auth.ensureAdmin(email, OPERATOR_PASSWORD)).outcome,
      'taken-over',
      'the operator takes the account over',
    )
  return { app, hasher, email, squatter, takeOver }
}

t.test("a PATCH /me in flight during a takeover does not put the registrant's password back", async (t) => {
  const { app, hasher, email, squatter, takeOver } = await setUp(t)
  const pause = hasher.pauseAfterChecking(squatter.password)
  const change = app.inject({
    method: 'PATCH',
    url: '/me',
    headers: squatter.auth,
    payload: { currentPassword: squatter.password, password: squatter.password },
  })
  await pause.reached
  await takeOver()
  pause.release()
  const answer = await change
  t.equal(answer.statusCode, 403, 'refused: the password it checked is no longer the current one')
  t.match(answer.json(), { error: { code: 'CURRENT_PASSWORD_INCORRECT' } })
  t.equal((await login(app, email, squatter.password)).statusCode, 401, "the registrant's password does not sign in")
  const operator = await login(app, email, OPERATOR_PASSWORD)
  t.equal(operator.statusCode, 200, 'ADMIN_PASSWORD signs in')
  t.equal(operator.json().data.user.role, 'admin')
})

t.test('a login in flight during a takeover gets no session', async (t) => {
  const { app, hasher, email, squatter, takeOver } = await setUp(t)
  const pause = hasher.pauseAfterChecking(squatter.password)
  const signIn = login(app, email, squatter.password)
  await pause.reached
  await takeOver()
  pause.release()
  const answer = await signIn
  t.equal(answer.statusCode, 401, 'refused as a wrong password is: the password it checked was replaced')
  t.match(answer.json(), { error: { code: 'INVALID_CREDENTIALS' } })
})

t.test('a login with the old password in flight during a password change gets no session', async (t) => {
  const hasher = makePausingHasher()
  const app = await build(t, {}, { passwords: hasher.wrap })
  const owner = await registerUser(app)
  const pause = hasher.pauseAfterChecking(owner.password)
  const signIn = login(app, owner.email, owner.password)
  await pause.reached
  const changed = await app.inject({
    method: 'PATCH',
    url: '/me',
    headers: owner.auth,
    payload: { currentPassword: owner.password, password: 'the owner changed it' },
  })
  t.equal(changed.statusCode, 200, 'the owner changes the password')
  pause.release()
  t.equal((await signIn).statusCode, 401, 'the login that checked the old password is refused')
  t.equal(
    (await app.inject({ method: 'GET', url: '/me', headers: owner.auth })).statusCode,
    200,
    "the owner's own session lives on",
  )
})

t.test(
  'on PostgreSQL, a takeover whose transaction is still open',
  { skip: usingPostgres ? false : 'needs PostgreSQL (a second connection)' },
  async (t) => {
    // What grantAdmin writes, done by hand on a connection of the test's own and left uncommitted,
    // so that a request reaches the account while the takeover is half done.
    const takeover = new pg.Client({ connectionString: process.env.DATABASE_URL })
    await takeover.connect()
    t.teardown(() => takeover.end())
    const { pid } = (await takeover.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!
    const begin = async (userId: string, newHash: string) => {
      await takeover.query('begin')
      await takeover.query(`update users set role = 'admin', password_hash = $2 where id = $1`, [userId, newHash])
      await takeover.query('update sessions set revoked_at = now() where user_id = $1 and revoked_at is null', [userId])
    }
    /** Resolves once a query of the app waits for the takeover's locks; never resolves when none does. */
    const blocked = async (done: Promise<unknown>) => {
      let settled = false
      void done.finally(() => (settled = true))
      for (let poll = 0; poll < 3000 && !settled; poll++) {
        const waiting = await takeover.query('select 1 from pg_stat_activity where $1 = any(pg_blocking_pids(pid))', [
          pid,
        ])
        if (waiting.rowCount) return
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
    }

    t.test('a login that checked the old password waits for it, then is refused', async (t) => {
      const { app, hasher, email, squatter } = await setUp(t)
      const other = await registerUser(app)
      const otherHash = await app.services.database.prisma.user.findUniqueOrThrow({ where: { email: other.email } })
      const pause = hasher.pauseAfterChecking(squatter.password)
      const signIn = login(app, email, squatter.password)
      await pause.reached
      await begin(squatter.id, otherHash.passwordHash)
      pause.release()
      // Its session would be inserted after the takeover's revocation ran, and outlive it.
      await Promise.race([signIn, blocked(signIn)])
      await takeover.query('commit')
      t.equal((await signIn).statusCode, 401)
    })

    t.test('a refresh that found its session live waits for it, then is refused', async (t) => {
      const { app, squatter } = await setUp(t)
      const other = await registerUser(app)
      const otherHash = await app.services.database.prisma.user.findUniqueOrThrow({ where: { email: other.email } })
      await begin(squatter.id, otherHash.passwordHash)
      const refresh = app.inject({ method: 'POST', url: '/refresh', payload: { refreshToken: squatter.refreshToken } })
      await Promise.race([refresh, blocked(refresh)])
      await takeover.query('commit')
      const answer = await refresh
      t.equal(answer.statusCode, 401, 'the session ended under it')
      if (answer.statusCode === 200) {
        // Whatever it answered, nothing it gave may work.
        const { accessToken, refreshToken } = answer.json().data
        t.equal(
          (await app.inject({ method: 'GET', url: '/me', headers: { authorization: `Bearer ${accessToken}` } }))
            .statusCode,
          401,
        )
        t.equal((await app.inject({ method: 'POST', url: '/refresh', payload: { refreshToken } })).statusCode, 401)
      }
    })
  },
)
