// `npm run user:admin -- <email>`: makes an existing account an admin (the first admin, or a
// rescue when every admin is gone). A missing account is created when ADMIN_EMAIL and
// ADMIN_PASSWORD are set, with that password.
// Uses the configured database (DATABASE_URL, or the embedded one under DATA_DIR).
import { existsSync } from 'node:fs'
import { makeAccountStore } from '../src/auth/account-store.ts'
import { makeAuthService } from '../src/auth/auth-service.ts'
import { makePasswordHasher } from '../src/auth/passwords.ts'
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
    passwords,
    config,
    // Promotion starts no session and registers nobody.
    signAccessToken: () => {
      throw new Error('no tokens are issued here')
    },
    onRegistered: async () => {},
  })
  const password = config.adminEmail?.toLowerCase() === email.toLowerCase() ? config.adminPassword : null
  const { created } = await auth.ensureAdmin(email, password)
  console.log(created ? `Created admin ${email}.` : `${email} is an admin.`)
} catch (error) {
  console.error(error instanceof Error ? error.message : error)
  await Promise.all([database.close(), passwords.close()])
  // Explicitly: PGlite's shutdown resets process.exitCode.
  process.exit(1)
}
await Promise.all([database.close(), passwords.close()])
