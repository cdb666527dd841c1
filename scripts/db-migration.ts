// `npm run db:migration -- <name>`: writes prisma/migrations/<timestamp>_<name>/migration.sql with
// the SQL that takes the existing migrations to prisma/schema.prisma. Never edit the result by hand.
import { createMigration } from '../src/db/migrations.ts'

const name = process.argv[2]
if (!name || process.argv.length > 3) {
  console.error('usage: npm run db:migration -- <name>   (name: a-z, 0-9, _)')
  process.exit(2)
}

try {
  const created = await createMigration(name)
  console.log(created ? created.directory : 'no changes: prisma/schema.prisma matches the migrations')
} catch (error) {
  console.error(error instanceof Error ? error.message : error)
  process.exit(1)
}
