// The migration runner on the embedded database (PGlite); test/db/migration-checks.ts holds the
// checks, which migrations-postgres.test.ts runs on a real PostgreSQL.
import path from 'node:path'
import { readFile, writeFile } from 'node:fs/promises'
import t from 'tap'
import { applyMigrations, createMigration, diffDatabaseAgainstSchema } from '../../src/db/migrations.ts'
import { checkMigrationRunner, copyMigrations, freshPglite, migrationFolders, schemaPath } from './migration-checks.ts'

checkMigrationRunner(t, 'PGlite', freshPglite)

t.test('createMigration', async (t) => {
  t.equal(await createMigration('nothing_new'), null, 'no change against the committed migrations')
  await t.rejects(createMigration('Not-Valid'), /invalid migration name/)

  const dir = await copyMigrations(t)
  const schemaFile = path.join(dir, 'schema.prisma')
  const schema = await readFile(schemaPath, 'utf8')
  await writeFile(schemaFile, schema.replace(/(model Category \{\n)/, '$1  description String?\n'))

  const created = await createMigration('add_description', { migrationsDir: dir, schemaPath: schemaFile })
  t.ok(created, 'a migration was written')
  t.match(created!.sql, /ALTER TABLE "categories" ADD COLUMN\s+"description" TEXT/)
  const folders = await migrationFolders(dir)
  t.equal(folders.at(-1), path.basename(created!.directory), 'sorts after the existing migrations')
  t.match(path.basename(created!.directory), /^\d{14}_add_description$/)
  t.equal(await readFile(path.join(created!.directory, 'migration.sql'), 'utf8'), created!.sql)

  // The new history applies cleanly and lands exactly on the modified schema.
  const { factory } = await freshPglite(t)
  t.same((await applyMigrations(factory, { migrationsDir: dir })).applied, folders)
  t.equal(await diffDatabaseAgainstSchema(factory, { schemaPath: schemaFile }), '')
})
