// The migration post_slugs on a database that has posts, on both databases: every post gets a
// slug, unique, the same on every run (numbered in order of creation, also where one title's
// numbered slug is another title's own); Latin titles get exactly the slug this release derives;
// and a post written by the previous release, which knows no slugs, gets one as it is inserted.
import { cp, mkdtemp, readdir, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { PGlite } from '@electric-sql/pglite'
import { PrismaPg } from '@prisma/adapter-pg'
import pg from 'pg'
import { PrismaPGlite } from 'pglite-prisma-adapter'
import t, { type Test } from 'tap'
import { applyMigrations, type MigrationAdapterFactory } from '../../src/db/migrations.ts'
import { slugOfTitle } from '../../src/content/slugs/post-slugs.ts'
import { fallbackSlug } from '../helpers/slugs.ts'
import { createScratchDatabase } from '../helpers/postgres.ts'

const MIGRATION = '20261124080108_post_slugs'
const migrationsDir = fileURLToPath(new URL('../../prisma/migrations', import.meta.url))

type Query = (sql: string, values?: unknown[]) => Promise<Record<string, unknown>[]>
interface Database {
  factory: MigrationAdapterFactory
  query: Query
}

async function pglite(t: Test): Promise<Database> {
  const db = new PGlite()
  await db.waitReady
  t.teardown(() => db.close())
  return { factory: new PrismaPGlite(db), query: async (sql, values) => (await db.query(sql, values)).rows as never }
}

async function postgres(t: Test): Promise<Database> {
  const url = await createScratchDatabase(t, 'post_slugs_migration')
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  t.teardown(() => client.end())
  return {
    factory: new PrismaPg({ connectionString: url }),
    query: async (sql, values) => (await client.query(sql, values)).rows,
  }
}

/** The migrations before post_slugs, in a folder of their own. */
/** The migrations before post_slugs, or (`through`) up to it: later ones (drafts claim no slug) are not this test's. */
async function migrationsBefore(t: Test, through = false): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'migrations-before-slugs-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  await cp(path.join(migrationsDir, 'migration_lock.toml'), path.join(dir, 'migration_lock.toml'))
  for (const entry of await readdir(migrationsDir, { withFileTypes: true }))
    if (entry.isDirectory() && (entry.name < MIGRATION || (through && entry.name === MIGRATION)))
      await cp(path.join(migrationsDir, entry.name), path.join(dir, entry.name), { recursive: true })
  return dir
}

const LONG = `${'Walking '.repeat(12)}in the rain`
// In order of creation.
const TITLES = [
  'Hello',
  'Café Straße & Œuvres',
  'Hello',
  'Hello 2',
  '東京の夏',
  'Hello',
  '東京の夏',
  'Привет, мир',
  LONG,
  'Top 10',
  'Top',
]

async function postsBeforeTheMigration(db: Database) {
  await db.query(`insert into users (id, email, name, password_hash, updated_at)
    values ('0192f7c4-5a2b-7c3d-8e4f-123456789abc', 'old@example.com', 'Old', 'x', now())`)
  for (const [n, title] of TITLES.entries()) {
    await db.query(
      `insert into posts (id, author_id, title, body, excerpt, created_at, updated_at)
       values ($1, '0192f7c4-5a2b-7c3d-8e4f-123456789abc', $2, 'Body.', 'Body.', $3, $3)`,
      [`0192f7d1-0000-7000-8000-${String(n).padStart(12, '0')}`, title, new Date(Date.UTC(2025, 0, 1, 0, n))],
    )
  }
}

const slugsByTitleOrder = async (db: Database) =>
  (await db.query('select slug from posts order by created_at, id')).map((row) => row.slug as string)

for (const [label, fresh] of Object.entries({ PGlite: pglite, PostgreSQL: postgres })) {
  t.test(`${label}: existing posts get unique slugs, the same on every run`, async (t) => {
    const runs: string[][] = []
    for (let run = 0; run < 2; run++) {
      const db = await fresh(t)
      const dir = await migrationsBefore(t)
      await applyMigrations(db.factory, { migrationsDir: dir })
      await postsBeforeTheMigration(db)
      // Later migrations stay out of the folder, so that they cannot hide whether this one applies.
      await cp(path.join(migrationsDir, MIGRATION), path.join(dir, MIGRATION), { recursive: true })
      t.same(
        (await applyMigrations(db.factory, { migrationsDir: dir })).applied,
        [MIGRATION],
        'the migration applies on a database with posts',
      )
      runs.push(await slugsByTitleOrder(db))
      const rows = await db.query('select slug, post_id::text as id, stem, suffix from post_slugs order by slug')
      t.equal(rows.length, TITLES.length, 'one post_slugs row per post')
      t.match(
        rows.find((row) => row.slug === 'top-10'),
        { stem: 'top', suffix: 10 },
        'stem and number stored',
      )
    }
    t.same(runs[0], runs[1], 'deterministic')
    t.same(runs[0], [
      'hello',
      'cafe-strasse-oeuvres',
      'hello-2',
      'hello-2-2',
      fallbackSlug('東京の夏'),
      'hello-3',
      `${fallbackSlug('東京の夏')}-2`,
      fallbackSlug('Привет, мир'), // no transliteration in SQL: the hash
      'walking-walking-walking-walking-walking-walking-walking',
      'top-10',
      'top',
    ])
  })

  t.test(`${label}: the migration's rule is this release's, transliteration aside`, async (t) => {
    const db = await fresh(t)
    await applyMigrations(db.factory)
    const latin = [
      ...TITLES.filter((title) => !/[東П]/.test(title)),
      'ﬁnance ½, Ærø İstanbul, ẞtraße, Łódź, Þór, Đà',
      '  --Hello,   World--  ',
      `${'a'.repeat(40)}-${'b'.repeat(30)}`,
      `${'a'.repeat(60)} b`,
      `ab ${'c'.repeat(70)}`,
      `${'a'.repeat(59)} ${'b'.repeat(9)}`,
      '!!!',
    ]
    for (const title of latin) {
      const [row] = await db.query('select post_slug_of_title($1) as slug', [title])
      t.equal(row!.slug, await slugOfTitle(title), title)
    }
  })

  t.test(`${label}: post_slugs_claimed_when_published lets drafts' slugs go, and keeps published ones`, async (t) => {
    const db = await fresh(t)
    await applyMigrations(db.factory, { migrationsDir: await migrationsBefore(t, true) })
    await postsBeforeTheMigration(db)
    await db.query(`update posts set status = 'published' where id = '0192f7d1-0000-7000-8000-000000000000'`)
    const slugs = await slugsByTitleOrder(db)
    await applyMigrations(db.factory)
    t.same(await slugsByTitleOrder(db), slugs, 'every post keeps its slug')
    t.same(
      await db.query('select slug, post_id::text as id from post_slugs'),
      [{ slug: slugs[0], id: '0192f7d1-0000-7000-8000-000000000000' }],
      'only the published post claims one',
    )
  })

  t.test(`${label}: a post the previous release writes, without a slug, gets one`, async (t) => {
    const db = await fresh(t)
    await applyMigrations(db.factory, { migrationsDir: await migrationsBefore(t) })
    await postsBeforeTheMigration(db)
    await applyMigrations(db.factory, { migrationsDir: await migrationsBefore(t, true) })
    // The previous release's insert, as its Prisma client writes it: no slug column.
    await db.query(`insert into posts (id, author_id, title, body, excerpt, updated_at)
      values ('0192f7d1-0000-7000-8000-999999999999', '0192f7c4-5a2b-7c3d-8e4f-123456789abc', 'Hello', 'B', 'B', now())`)
    const [row] = await db.query(`select slug from posts where id = '0192f7d1-0000-7000-8000-999999999999'`)
    t.equal(row!.slug, 'hello-4', 'numbered after the others')
    t.same(
      await db.query(`select post_id::text as id from post_slugs where slug = 'hello-4'`),
      [{ id: '0192f7d1-0000-7000-8000-999999999999' }],
      'and its slug is reserved for it',
    )
  })
}
