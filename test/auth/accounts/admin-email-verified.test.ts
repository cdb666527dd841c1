// The admin at ADMIN_EMAIL has a verified email: the operator named the address. An account made
// or taken over by ADMIN_EMAIL is verified, and so is an admin of that address made before email
// verification existed (verified at the next start); an ordinary account elsewhere stays unverified.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { build, usingPostgres } from '../../helpers/build.ts'
import { login, registerUser, uniqueEmail } from '../../helpers/accounts.ts'

t.test('ADMIN_EMAIL accounts are verified, at creation and at every start', async (t) => {
  const env: Record<string, string> = usingPostgres
    ? {}
    : { DATA_DIR: mkdtempSync(join(tmpdir(), 'blog-admin-verified-')) }
  const email = uniqueEmail('ops')
  const password = 'the operator password'
  const operator = { ...env, ADMIN_EMAIL: email, ADMIN_PASSWORD: password }
  const verifiedOf = async (app: Awaited<ReturnType<typeof build>>) =>
    (await login(app, email, password)).json().data.user.emailVerified

  const first = await build(t, operator)
  t.equal(await verifiedOf(first), true, 'created by ADMIN_EMAIL: verified')
  const someone = await registerUser(first, 'someone')
  // As if the admin had been made before email verification existed.
  await first.services.database.prisma.$executeRaw`update users set email_verified = false where email = ${email}`
  await first.close()

  const restarted = await build(t, operator)
  t.equal(await verifiedOf(restarted), true, 'verified again at start-up')
  const other = (await login(restarted, someone.email, someone.password)).json().data.user
  t.equal(other.emailVerified, false, 'other accounts are left as they are')
})
