// The migration runner's checks, run on each supported database by migrations-pglite.test.ts and
// migrations-postgres.test.ts (two files, so that each stays well within tap's time per file).
import { createHash } from 'node:crypto'
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

import { PGlite } from '@electric-sql/pglite'
import { PrismaPg } from '@prisma/adapter-pg'
import pg from 'pg'
import { PrismaPGlite } from 'pglite-prisma-adapter'
import type { Test } from 'tap'

import {
  applyMigrations,
  diffDatabaseAgainstSchema,
  type MigrationAdapterFactory,
  MigrationHistoryError,
} from '../../src/db/migrations.ts'
import { createScratchDatabase } from '../helpers/postgres.ts'

const projectRoot = fileURLToPath(new URL('../../', import.meta.url))
const migrationsDir = path.join(projectRoot, 'prisma/migrations')
export const schemaPath = path.join(projectRoot, 'prisma/schema.prisma')

type Query = (sql: string) => Promise<Record<string, unknown>[]>

export async function migrationFolders(dir = migrationsDir) {
  const entries = await readdir(dir, { withFileTypes: true })
  return entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
}

async function addMigration(dir: string, name: string, sql: string) {
  const directory = path.join(dir, name)
  await mkdir(directory)
  await writeFile(path.join(directory, 'migration.sql'), sql)
  return directory
}

/** A copy of the real migrations that a test may modify. */
export async function copyMigrations(t: Test) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'migrations-test-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  await cp(migrationsDir, dir, { recursive: true })
  return dir
}

interface Database {
  factory: MigrationAdapterFactory
  query: Query
}

export async function freshPglite(t: Test): Promise<Database> {
  const pglite = new PGlite()
  await pglite.waitReady
  t.teardown(() => pglite.close())
  const query: Query = async (sql) => (await pglite.query<Record<string, unknown>>(sql)).rows
  return { factory: new PrismaPGlite(pglite), query }
}

/** A new, uniquely named database on the test server, dropped after the test. */
export async function freshPostgres(t: Test): Promise<Database> {
  const url = await createScratchDatabase(t, 'migrations_test')
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  t.teardown(() => client.end()) // teardowns run in reverse: closed before the drop
  const query: Query = async (sql) => (await client.query(sql)).rows
  return { factory: new PrismaPg({ connectionString: url }), query }
}

/** What both databases must show after the committed migrations were applied. */
async function checkMigratesLikePrisma(t: Test, { factory, query }: Database) {
  const folders = await migrationFolders()
  t.ok(folders.length > 0, 'the repository has migrations')

  t.same(await applyMigrations(factory), { applied: folders }, 'first run applies every migration')
  t.same(await applyMigrations(factory), { applied: [] }, 'second run applies nothing')
  t.equal(await diffDatabaseAgainstSchema(factory), '', 'the migrations produce exactly schema.prisma')

  const rows = await query(
    'SELECT migration_name, checksum, finished_at, rolled_back_at, applied_steps_count, logs ' +
      'FROM _prisma_migrations ORDER BY migration_name',
  )
  t.equal(rows.length, folders.length, 'one _prisma_migrations row per migration folder')
  for (const [i, folder] of folders.entries()) {
    const row = rows[i]!
    const file = await readFile(path.join(migrationsDir, folder, 'migration.sql'))
    t.equal(row.migration_name, folder)
    t.equal(row.checksum, createHash('sha256').update(file).digest('hex'), `${folder}: checksum is sha256 of the file`)
    t.type(row.finished_at, Date, `${folder}: finished_at is set`)
    t.equal(row.rolled_back_at, null)
    t.equal(row.applied_steps_count, 1)
    t.equal(row.logs, null)
  }

  // The diff really reads the database: drift made outside the migrations shows up.
  await query('ALTER TABLE "categories" ADD COLUMN "stray" INTEGER')
  t.match(await diffDatabaseAgainstSchema(factory), /ALTER TABLE "categories" DROP COLUMN "stray"/, 'drift is reported')
}

/** The runner's checks on one database, each a subtest of `t`. */
export function checkMigrationRunner(t: Test, label: string, fresh: (t: Test) => Promise<Database>) {
  t.test(`${label}: applies the migrations as prisma migrate deploy does`, async (t) => {
    await checkMigratesLikePrisma(t, await fresh(t))
  })

  t.test(`${label}: refuses a migration modified after it was applied`, async (t) => {
    const dir = await copyMigrations(t)
    const { factory } = await fresh(t)
    await applyMigrations(factory, { migrationsDir: dir })

    const [first] = await migrationFolders(dir)
    const file = path.join(dir, first!, 'migration.sql')
    await writeFile(file, (await readFile(file, 'utf8')) + '\n-- edited afterwards\n')

    await t.rejects(applyMigrations(factory, { migrationsDir: dir }), {
      name: 'MigrationHistoryError',
      message: new RegExp(`modified after being applied.*${first}`),
    })
  })

  t.test(`${label}: refuses a database with migrations the directory lacks`, async (t) => {
    const dir = await copyMigrations(t)
    const { factory } = await fresh(t)
    const extra = await addMigration(dir, '29991231235959_from_the_future', 'CREATE TABLE "future" ("id" INTEGER);\n')
    await applyMigrations(factory, { migrationsDir: dir })
    await rm(extra, { recursive: true })

    const error = await applyMigrations(factory, { migrationsDir: dir }).catch((e: unknown) => e)
    t.ok(error instanceof MigrationHistoryError, 'a MigrationHistoryError')
    t.match((error as Error).message, /database has migrations .* lacks: 29991231235959_from_the_future/)
  })

  t.test(`${label}: a script runs whole; a failing one is recorded as failed and blocks later runs`, async (t) => {
    // Unpatched, pglite-prisma-adapter records a failing script as applied, and adapter-pg
    // splits scripts on every ";" and runs the pieces without atomicity.
    const dir = await copyMigrations(t)
    const { factory, query } = await fresh(t)
    await addMigration(dir, '29991231235958_semicolons', `CREATE TABLE "notes" ("s" TEXT DEFAULT 'a;b');\n`)
    await addMigration(dir, '29991231235959_broken', 'CREATE TABLE "half" ("id" INTEGER);\nSELECT 1/0;\n')

    await t.rejects(applyMigrations(factory, { migrationsDir: dir }), { message: /external connector error/ })
    const rows = await query(
      `SELECT migration_name, finished_at FROM _prisma_migrations WHERE migration_name LIKE '2999%' ORDER BY 1`,
    )
    t.equal(rows.length, 2)
    t.type(rows[0]?.finished_at, Date, 'a ";" inside a string literal is no statement separator')
    t.equal(rows[1]?.finished_at, null, 'the failing migration is recorded as not finished')
    t.same(await query(`SELECT to_regclass('public.half')::text AS half`), [{ half: null }], 'rolled back as a whole')
    await t.rejects(applyMigrations(factory, { migrationsDir: dir }), { code: 'P3009' }, 'later runs refused')
  })
}
