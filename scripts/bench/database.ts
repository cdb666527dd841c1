// A database of the benchmark's own, removed afterwards: on the PostgreSQL server DATABASE_URL
// names (never the database it names), or an embedded one in a temporary folder.
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'

export interface ScratchDatabase {
  kind: 'embedded' | 'postgres'
  /** The variables that point the service at it. */
  env: Record<string, string>
  /**
   * PostgreSQL: a copy of the database as it is now, for the pg peer, so that PostgreSQL's
   * statistics on the original count the service's statements alone. Nothing may be connected to
   * the original meanwhile. Dropped with it.
   */
  copy?(): Promise<string>
  drop(): Promise<void>
}

export async function scratchPostgres(given: string): Promise<ScratchDatabase> {
  const name = `blog_bench_${randomBytes(4).toString('hex')}`
  const admin = new pg.Client({ connectionString: given })
  await admin.connect()
  await admin.query(`create database ${name}`)
  const url = new URL(given)
  url.pathname = `/${name}`
  return {
    kind: 'postgres',
    env: { DATABASE_URL: url.href, JWT_SECRET: randomBytes(32).toString('base64url') },
    async copy() {
      await admin.query(`create database ${name}_peer template ${name}`)
      const copy = new URL(url)
      copy.pathname = `/${name}_peer`
      return copy.href
    },
    async drop() {
      await admin.query(`drop database if exists ${name}_peer with (force)`)
      await admin.query(`drop database if exists ${name} with (force)`)
      await admin.end()
    },
  }
}

export function scratchEmbedded(): ScratchDatabase {
  const dataDir = mkdtempSync(join(tmpdir(), 'blog-bench-'))
  return {
    kind: 'embedded',
    env: { DATA_DIR: dataDir },
    drop: async () => rmSync(dataDir, { recursive: true, force: true }),
  }
}

export const scratchDatabase = (given: string | undefined) =>
  given ? scratchPostgres(given) : Promise.resolve(scratchEmbedded())
