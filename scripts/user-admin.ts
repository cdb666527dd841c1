// `npm run user:admin -- <email>`: makes an existing account an admin (the first admin, or a
// rescue when every admin is gone), also an address start-up no longer promotes because an admin
// demoted it. With ADMIN_EMAIL set to that address and ADMIN_PASSWORD: a missing account is
// created with that password, and a registered one that is not an admin yet gets it (its
// sessions end). Without: the registered account keeps its own password, with a warning.
// Uses the configured database (DATABASE_URL, or the embedded one under DATA_DIR).
import { existsSync } from 'node:fs'
import { makeAccountDeletionStore } from '../src/auth/accounts/account-deletion-store.ts'
import { makeAccountStore } from '../src/auth/account-store.ts'
import { ADMIN_GRANT_MESSAGES, makeAuthService } from '../src/auth/auth-service.ts'
import { makePasswordHasher } from '../src/auth/passwords/passwords.ts'
import { loadConfig } from '../src/config.ts'
import { openDatabase } from '../src/db/database.ts'

if (existsSync('.env')) process.loadEnvFile('.env')

const email = process.argv[2]
if (!email || process.argv.length > 3) {
  console.error('usage: npm run user:admin -- <email>')
  process.exit(2)
}

let config
try {
  config = loadConfig()
} catch (error) {
  console.error(error instanceof Error ? error.message : error)
  process.exit(1)
}
const database = await openDatabase(config)
const passwords = makePasswordHasher(config.bcryptCost)
try {
  const auth = makeAuthService({
    store: makeAccountStore(database.prisma),
    deletions: makeAccountDeletionStore(database.prisma),
    passwords,
    config,
    // Promotion starts no session and registers nobody.
    signAccessToken: () => {
      throw new Error('no tokens are issued here')
    },
    onRegistered: async () => {},
    onEmailChanged: async () => {},
  })
  const password = config.adminEmail?.toLowerCase() === email.toLowerCase() ? config.adminPassword : null
  const { created, outcome } = await auth.ensureAdmin(email, password)
  console.log(created ? `Created admin ${email}.` : `${email} is an admin: ${ADMIN_GRANT_MESSAGES[outcome]}.`)
  if (outcome === 'promoted') {
    // Anyone can register any address: whoever did may not be the person the operator means.
    console.warn(
      `Warning: ${email} keeps the password its registrant chose, and its sessions stay signed in. If you did not ` +
        `register this account yourself, demote it (PATCH /users/{id}) and run this again with ADMIN_EMAIL=${email} ` +
        'and ADMIN_PASSWORD set: that gives it your password and ends its sessions.',
    )
  }
} catch (error) {
  console.error(error instanceof Error ? error.message : error)
  await Promise.all([database.close(), passwords.close()])
  // Explicitly: PGlite's shutdown resets process.exitCode.
  process.exit(1)
}
await Promise.all([database.close(), passwords.close()])
