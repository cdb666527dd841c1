// Throwaway databases on the test PostgreSQL server (127.0.0.1:5432 unless TEST_POSTGRES_URL says
// otherwise). Tests that need one fail, never skip, when the server is unreachable: CI has one.
import { randomUUID } from 'node:crypto'
import pg from 'pg'
import type { Test } from 'tap'

/** Creates a uniquely named database, dropped after the test; returns its URL. */
export async function createScratchDatabase(t: Test, prefix = 'scratch'): Promise<string> {
  const adminUrl = process.env.TEST_POSTGRES_URL ?? 'postgres://root@127.0.0.1:5432/postgres'
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  t.teardown(() => admin.end())
  const database = `${prefix}_${randomUUID().replaceAll('-', '')}`
  await admin.query(`CREATE DATABASE "${database}"`)
  // Teardowns run in reverse order: whatever the test opened later is closed before the drop.
  t.teardown(() => admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`))
  const url = new URL(adminUrl)
  url.pathname = `/${database}`
  return url.href
}
