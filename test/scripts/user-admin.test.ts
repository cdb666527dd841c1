// `npm run user:admin -- <email>` makes the first admin, from outside the API.
import { execFile } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { buildApp } from '../../src/app.ts'
import { login, registerUser } from '../helpers/accounts.ts'
import { testConfig, usingPostgres } from '../helpers/build.ts'
import { createScratchDatabase } from '../helpers/postgres.ts'

const run = promisify(execFile)

t.test(
  `promotes a registered account, and creates one with ADMIN_PASSWORD (${usingPostgres ? 'PostgreSQL' : 'embedded'})`,
  async (t) => {
    const env = usingPostgres
      ? { DATABASE_URL: await createScratchDatabase(t, 'user_admin'), DATA_DIR: 'memory:' }
      : { DATABASE_URL: '', DATA_DIR: mkdtempSync(join(tmpdir(), 'blog-user-admin-')) }
    const script = (email: string, extra: Record<string, string> = {}) =>
      run(process.execPath, ['--import=tsx', 'scripts/user-admin.ts', email], {
        env: { ...process.env, JWT_SECRET: 'x'.repeat(40), ...env, ...extra },
      })

    // The embedded database belongs to one process at a time: register, close, then run the script.
    let app = await buildApp(testConfig(env))
    const user = await registerUser(app)
    await app.close()

    const promotion = await script(user.email)
    t.match(
      promotion.stdout,
      `${user.email} is an admin: the registered account was made an admin; it keeps its own password.`,
    )
    // Anyone can register any address: the operator must hear that whoever did still signs in.
    t.match(promotion.stderr, `Warning: ${user.email} keeps the password its registrant chose`, 'with a warning')
    t.match(
      (
        await script('new-admin@example.com', {
          ADMIN_EMAIL: 'new-admin@example.com',
          ADMIN_PASSWORD: 'created by script',
        })
      ).stdout,
      'Created admin new-admin@example.com.',
    )
    await t.rejects(script('nobody@example.com'), /No account with the email nobody@example.com/)

    app = await buildApp(testConfig(env))
    t.teardown(() => app.close())
    const promoted = await login(app, user.email, user.password)
    t.equal(promoted.json().data.user.role, 'admin')
    const created = await login(app, 'new-admin@example.com', 'created by script')
    t.equal(created.json().data.user.role, 'admin')
  },
)
