// The migration runner on a real PostgreSQL; test/db/migration-checks.ts holds the checks, which
// migrations-pglite.test.ts runs on the embedded database.
import t from 'tap'
import { checkMigrationRunner, freshPostgres } from './migration-checks.ts'

checkMigrationRunner(t, 'PostgreSQL', freshPostgres)
