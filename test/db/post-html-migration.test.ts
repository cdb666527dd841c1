// The migration that adds posts.html, on a database that already has posts: every existing post is
// queued for the render-posts job, and from then on the database keeps html honest against writers
// that do not render (the release before, during a rolling upgrade; SQL by hand): a post they
// create or whose body they change is queued, and html that no longer matches its body is dropped.
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
import { createScratchDatabase } from '../helpers/postgres.ts'

const migrationsDir = fileURLToPath(new URL('../../prisma/migrations/', import.meta.url))
const POST_HTML = (await readdir(migrationsDir)).find((name) => name.endsWith('_post_html'))!

type Query = (sql: string, values?: unknown[]) => Promise<Record<string, unknown>[]>

async function pglite(t: Test) {
  const db = new PGlite()
  await db.waitReady
  t.teardown(() => db.close())
  const query: Query = async (sql, values) => (await db.query<Record<string, unknown>>(sql, values)).rows
  return { factory: new PrismaPGlite(db) as MigrationAdapterFactory, query }
}

async function postgres(t: Test) {
  const url = await createScratchDatabase(t, 'post_html_migration')
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  t.teardown(() => client.end())
  const query: Query = async (sql, values) => (await client.query(sql, values)).rows
  return { factory: new PrismaPg({ connectionString: url }) as MigrationAdapterFactory, query }
}

for (const [label, fresh] of Object.entries({ PGlite: pglite, PostgreSQL: postgres })) {
  t.test(`${label}: existing posts are queued, and writers that do not render are caught`, async (t) => {
    const { factory, query } = await fresh(t)
    // The migrations as they were before post_html, then with it.
    const dir = await mkdtemp(path.join(os.tmpdir(), 'post-html-migration-'))
    t.teardown(() => rm(dir, { recursive: true, force: true }))
    await cp(migrationsDir, dir, { recursive: true, filter: (source) => !source.includes(POST_HTML) })
    await applyMigrations(factory, { migrationsDir: dir })

    const [user] = await query(
      `insert into users (id, email, name, password_hash, updated_at)
       values (gen_random_uuid(), 'a@example.com', 'A', 'x', now()) returning id`,
    )
    const createPost = async (body: string) =>
      (
        await query(
          `insert into posts (id, author_id, title, body, excerpt, updated_at)
           values (gen_random_uuid(), $1, 't', $2, 'e', now()) returning id`,
          [user!.id, body],
        )
      )[0]!.id as string
    const existing = [await createPost('one'), await createPost('two')]

    await cp(path.join(migrationsDir, POST_HTML), path.join(dir, POST_HTML), { recursive: true })
    t.same(await applyMigrations(factory, { migrationsDir: dir }), { applied: [POST_HTML] })
    const queued = async () =>
      (await query('select post_id from post_html_pending order by post_id')).map((row) => row.post_id)
    t.same(await queued(), [...existing].sort(), 'every existing post is queued')

    // The job renders them (as PostStore.saveHtml does) and takes them off the list.
    for (const id of existing) {
      await query(`update posts set html = '<p>rendered</p>' where id = $1`, [id])
      await query('delete from post_html_pending where post_id = $1', [id])
    }

    // The release before: creates without html, edits the body alone.
    const created = await createPost('three')
    await query(`update posts set body = 'one, edited' where id = $1`, [existing[0]])
    const rows = async (id: string) => (await query('select html from posts where id = $1', [id]))[0]!.html
    t.equal(await rows(existing[0]!), null, 'html of the old body dropped')
    t.same(await queued(), [existing[0], created].sort(), 'both queued')

    // This release: the body with its html; other columns alone.
    await query(`update posts set body = 'two, edited', html = '<p>two, edited</p>' where id = $1`, [existing[1]])
    await query(`update posts set title = 'retitled', comment_count = 1 where id = $1`, [existing[1]])
    t.equal(await rows(existing[1]!), '<p>two, edited</p>', 'html written with its body stays')
    t.same(await queued(), [existing[0], created].sort(), 'nothing more queued')
  })
}
