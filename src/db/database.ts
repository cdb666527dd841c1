// Opens the one database the service runs on: the embedded PGlite when no DATABASE_URL is given,
// PostgreSQL otherwise. Everything that holds a connection is created here and closed by `close()`.
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import type { PGlite } from '@electric-sql/pglite'
import { PrismaPg } from '@prisma/adapter-pg'
import pg from 'pg'
import type { PrismaPGlite } from 'pglite-prisma-adapter'
import { PrismaClient } from '../generated/prisma/client.ts'
import type { Config } from '../config.ts'
import type { TransactionSql } from './transaction.ts'

/** How pg-boss reaches the embedded database (on Postgres it opens its own pool). */
export interface QueueSqlExecutor {
  executeSql: TransactionSql
}

/** An arbitrary constant naming our migration lock among Postgres advisory locks. */
const MIGRATION_LOCK_KEY = 727_274_001

export type AdapterFactory = PrismaPg | PrismaPGlite

export interface Database {
  kind: 'embedded' | 'postgres'
  prisma: PrismaClient
  /** The driver adapter factory, for the migration engine. */
  adapterFactory: AdapterFactory
  /** Set on the embedded database only: pg-boss shares PGlite's single connection. */
  queueExecutor: QueueSqlExecutor | null
  /** A cheap round trip, used by GET /health. */
  ping(): Promise<void>
  /** The connection pool's state, for metrics (the embedded database has one connection). */
  poolStats(): { total: number; idle: number; waiting: number }
  /**
   * Runs `fn` (the migration engine) with an adapter factory of its own, while holding the
   * database-wide migration lock, so instances that start together apply each migration once.
   */
  withMigrationLock<T>(fn: (adapterFactory: AdapterFactory) => Promise<T>): Promise<T>
  /**
   * The embedded database only: calls `onMessage` for each notification on `channel` sent by a
   * transaction of this process once it commits (PGlite is one session, which hears its own
   * NOTIFYs). On PostgreSQL instances listen on a connection of their own (post-invalidations.ts).
   */
  listen: ((channel: string, onMessage: (message: string) => void) => Promise<void>) | null
  close(): Promise<void>
}

/** Closing twice (a failed start-up, then onClose) must not fail. */
function once(close: () => Promise<void>): () => Promise<void> {
  let closing: Promise<void> | undefined
  return () => (closing ??= close())
}

export async function openDatabase(
  config: Pick<Config, 'databaseUrl' | 'dataDir' | 'databasePoolMax' | 'databaseTimeoutMs'>,
): Promise<Database> {
  return config.databaseUrl === null ? openEmbedded(config.dataDir, config.databaseTimeoutMs) : openPostgres(config)
}

/**
 * How to connect with the time zone set to UTC, keeping the startup options the operator gives (the
 * URL's `options`, or else PGOPTIONS). Prisma's driver adapter writes timestamps without an offset and
 * reads them as UTC: on a connection in another zone (the server's or the database's default), every
 * time written or read was off by it. The URL loses its `options`, since pg lets the URL's override
 * the ones passed beside it; and passing them beside it overrides PGOPTIONS, so those are merged too.
 */
function inUtc(databaseUrl: string): { connectionString: string; options: string } {
  const url = new URL(databaseUrl)
  const fromUrl = url.searchParams.get('options')
  url.searchParams.delete('options')
  return {
    // Rewritten only when it had options, so that any other URL reaches pg exactly as given.
    connectionString: fromUrl === null ? databaseUrl : url.href,
    options: [fromUrl ?? process.env.PGOPTIONS, '-c TimeZone=UTC'].filter(Boolean).join(' '),
  }
}

async function openPostgres(
  config: Pick<Config, 'databaseUrl' | 'databasePoolMax' | 'databaseTimeoutMs'>,
): Promise<Database> {
  const connection = inUtc(config.databaseUrl!)
  const pool = new pg.Pool({
    ...connection,
    max: config.databasePoolMax,
    // Fail fast while the database is down instead of queueing requests until they time out.
    connectionTimeoutMillis: config.databaseTimeoutMs,
    query_timeout: config.databaseTimeoutMs,
    application_name: 'blog-api',
  })
  // An idle client that loses its connection emits 'error'; the pool replaces it on next use.
  pool.on('error', () => {})
  const adapterFactory = new PrismaPg(pool)
  // Prisma gives up on a transaction that waits for a connection after maxWait (2 s by default), an
  // error answered 500; reads run in transactions too (post-store's snapshot). Waiting longer than
  // the pool does leaves the answer to the pool's own timeout: 503, as for any other query.
  const prisma = new PrismaClient({
    adapter: adapterFactory,
    transactionOptions: { maxWait: config.databaseTimeoutMs + 1000 },
  })
  return {
    kind: 'postgres',
    listen: null,
    prisma,
    adapterFactory,
    queueExecutor: null,
    async ping() {
      await pool.query('select 1')
    },
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    async withMigrationLock(fn) {
      // A connection of its own, without the pool's query timeout: waiting for another
      // instance's migrations is expected. The lock dies with the connection.
      const client = new pg.Client({ connectionString: config.databaseUrl!, application_name: 'blog-api-migrations' })
      await client.connect()
      try {
        await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_KEY])
        // The engine takes session-level locks of its own; on a pooled connection they would
        // outlive the run and block every other instance, so it gets connections it then closes.
        return await fn(new PrismaPg({ ...connection, max: 2 }))
      } finally {
        await client.end()
      }
    },
    close: once(async () => {
      await prisma.$disconnect()
      await pool.end()
    }),
  }
}

/**
 * An empty cluster, made once per process: creating one runs initdb in WebAssembly (about 2.5 s
 * here), loading this copy takes about 0.5 s. In-memory databases (tests, demos) start from it.
 */
let emptyCluster: Promise<Blob> | undefined

/**
 * PGlite and its adapter are imported only for the embedded database: on PostgreSQL their code
 * (about 1.5 MB of JavaScript) would only take memory.
 */
const loadPGlite = async () => (await import('@electric-sql/pglite')).PGlite

function loadEmptyCluster(): Promise<Blob> {
  emptyCluster ??= (async () => {
    const PGlite = await loadPGlite()
    const template = new PGlite()
    try {
      return await template.dumpDataDir('none')
    } finally {
      await template.close()
    }
  })()
  return emptyCluster
}

/**
 * DATA_DIR/pglite, made on first start beside it and renamed into place once initdb has finished.
 * PGlite takes a directory holding PG_VERSION for a cluster and runs initdb in any other, which
 * fails on the leftovers of an interrupted one: a first start stopped by Ctrl-C would otherwise
 * leave a directory every later start fails on. Such a leftover (no PG_VERSION, so no data) is
 * moved aside, not deleted.
 */
async function clusterDirectory(dataDir: string): Promise<string> {
  const directory = join(dataDir, 'pglite')
  if (existsSync(join(directory, 'PG_VERSION'))) return directory
  if (existsSync(directory)) renameSync(directory, `${directory}.incomplete-${Date.now()}`)
  // What a start killed during initdb left here is of no use: start again from nothing.
  const staging = `${directory}.initializing`
  rmSync(staging, { recursive: true, force: true })
  mkdirSync(staging, { recursive: true })
  const PGlite = await loadPGlite()
  const fresh = new PGlite(staging)
  await fresh.waitReady
  await fresh.close()
  renameSync(staging, directory)
  return directory
}

async function openEmbedded(dataDir: string | null, timeoutMs: number): Promise<Database> {
  const [PGlite, { PrismaPGlite }] = await Promise.all([loadPGlite(), import('pglite-prisma-adapter')])
  // Postgres' default shared_buffers (128 MB, 160 as PGlite sets it) lives in PGlite's WebAssembly
  // memory, which never shrinks: once written it stays resident. One connection and a developer's
  // data need far less: with 16 MB the idle server (compiled, data on disk) held about 340 MB instead of 450.
  const startParams = [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB']
  let pglite: PGlite
  if (dataDir === null) {
    pglite = new PGlite({ loadDataDir: await loadEmptyCluster(), startParams })
  } else {
    pglite = new PGlite(await clusterDirectory(dataDir), { startParams })
  }
  // Prisma's first query can hang if it races PGlite's start-up (TRAPS.md).
  await pglite.waitReady
  const adapterFactory = new PrismaPGlite(pglite)
  // PGlite is one connection: transactions queue for it. They wait as long as a query may take
  // (DATABASE_TIMEOUT_MS), not Prisma's 2 s, before the answer is 503.
  const prisma = new PrismaClient({ adapter: adapterFactory, transactionOptions: { maxWait: timeoutMs } })
  return {
    kind: 'embedded',
    listen: async (channel, onMessage) => void (await pglite.listen(channel, onMessage)),
    prisma,
    adapterFactory,
    queueExecutor: {
      async executeSql(text, values) {
        // pg-boss sends multi-statement scripts without parameters (its own migrations), which
        // PGlite runs only through exec; anything with parameters goes through query.
        if (values === undefined || values.length === 0) {
          const results = await pglite.exec(text)
          return { rows: results.at(-1)?.rows ?? [] }
        }
        return pglite.query(text, values)
      },
    },
    async ping() {
      await pglite.query('select 1')
    },
    poolStats: () => ({ total: 1, idle: 1, waiting: 0 }),
    // One process owns the embedded database: nobody to race with.
    withMigrationLock: (fn) => fn(adapterFactory),
    close: once(async () => {
      await prisma.$disconnect()
      await pglite.close()
    }),
  }
}
