// ADMIN_EMAIL/ADMIN_PASSWORD at start-up: an account someone registered at that address first is
// taken over by the operator (their password, the registrant's sessions ended), and an address an
// admin has since demoted stays demoted across restarts; `npm run user:admin` promotes it again.
import { execFile } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { build, usingPostgres } from '../../helpers/build.ts'
import { login, registerAdmin, registerUser, uniqueEmail } from '../../helpers/accounts.ts'

const run = promisify(execFile)

t.test(
  `a pre-registered ADMIN_EMAIL, a demotion, restarts and user:admin (${usingPostgres ? 'PostgreSQL' : 'embedded, on disk'})`,
  async (t) => {
    // Restarts need data that outlives an app: PGlite on disk; on PostgreSQL the test database.
    const env: Record<string, string> = usingPostgres
      ? {}
      : { DATA_DIR: mkdtempSync(join(tmpdir(), 'blog-admin-bootstrap-')) }
    const email = uniqueEmail('ops')
    const operator = { ...env, ADMIN_EMAIL: email, ADMIN_PASSWORD: 'the operator password' }

    const before = await build(t, env)
    const squatter = await registerUser(before, 'squatter', email)
    const otherSession = (await login(before, email, squatter.password)).json().data
    await before.close()

    const promoted = await build(t, operator)
    t.equal(
      (await login(promoted, email, squatter.password)).statusCode,
      401,
      "the registrant's password no longer signs in",
    )
    t.equal(
      (await promoted.inject({ method: 'GET', url: '/me', headers: squatter.auth })).statusCode,
      401,
      'their access token stops working',
    )
    for (const refreshToken of [squatter.refreshToken, otherSession.refreshToken]) {
      t.equal(
        (await promoted.inject({ method: 'POST', url: '/refresh', payload: { refreshToken } })).statusCode,
        401,
        'and so do their refresh tokens',
      )
    }
    const signedIn = await login(promoted, email, 'the operator password')
    t.equal(signedIn.statusCode, 200, 'ADMIN_PASSWORD signs in')
    t.equal(signedIn.json().data.user.role, 'admin')
    const otherAdmin = await registerAdmin(promoted)
    const demoted = await promoted.inject({
      method: 'PATCH',
      url: `/users/${squatter.id}`,
      headers: otherAdmin.auth,
      payload: { role: 'user' },
    })
    t.equal(demoted.statusCode, 200, 'another admin demotes it')
    await promoted.close()

    const restarted = await build(t, operator)
    const afterRestart = await login(restarted, email, 'the operator password')
    t.equal(afterRestart.json().data.user.role, 'user', 'a restart with the same ADMIN_EMAIL keeps the demotion')
    await restarted.close()

    const script = await run(process.execPath, ['--import=tsx', 'scripts/user-admin.ts', email], {
      env: {
        ...process.env,
        JWT_SECRET: 'test-secret-test-secret-test-secret-0123',
        DATABASE_URL: process.env.DATABASE_URL ?? '',
        DATA_DIR: 'memory:',
        ...operator,
      },
    })
    t.match(script.stdout, `${email} is an admin`, 'user:admin is the explicit way back')
    const after = await build(t, operator)
    t.equal((await login(after, email, 'the operator password')).json().data.user.role, 'admin')
  },
)

t.test(
  'ADMIN_EMAIL naming an admin an admin made is left as it is (as after an upgrade from before grants were kept)',
  async (t) => {
    const app = await build(t)
    const admin = await registerAdmin(app)
    const colleague = await registerUser(app, 'colleague')
    t.equal(
      (
        await app.inject({
          method: 'PATCH',
          url: `/users/${colleague.id}`,
          headers: admin.auth,
          payload: { role: 'admin' },
        })
      ).statusCode,
      200,
    )
    await app.services.auth.bootstrapAdmin(colleague.email, 'the operator password')
    t.equal((await login(app, colleague.email, colleague.password)).statusCode, 200, 'its own password still signs in')
    t.equal(
      (await app.inject({ method: 'GET', url: '/me', headers: colleague.auth })).statusCode,
      200,
      'and its sessions live on',
    )
  },
)
