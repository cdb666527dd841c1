// `npm run db:migrate`: applies pending migrations to the configured database (DATABASE_URL, or
// the embedded one under DATA_DIR). The server does the same at start-up; this is for deploy steps.
import { existsSync } from 'node:fs'
import { loadConfig } from '../src/config.ts'
import { openDatabase } from '../src/db/database.ts'
import { applyMigrations } from '../src/db/migrations.ts'

if (existsSync('.env')) process.loadEnvFile('.env')

const config = loadConfig()
const database = await openDatabase(config)
try {
  const { applied } = await database.withMigrationLock(applyMigrations)
  console.log(applied.length === 0 ? 'No pending migrations.' : `Applied: ${applied.join(', ')}`)
} finally {
  await database.close()
}
