// The service's SQL during a figure, counted by PostgreSQL itself on the bench's own database:
// reads (sequential and index scans, whichever the planner chose) of every table but pg-boss's
// (schema `pgboss`, src/queue/queue.ts: its workers poll there all the time, on a pool of their
// own, whatever the figure), in three parts. Reads of `posts` tell a figure that ran a page or
// post query per request from one that ran none; reads of `list_generations` are the one-row
// check a cached list page or feed makes (src/db/list-generation.ts); reads of any other table
// (users, categories, post_categories, post_thumbnails, comments...) are what a cached answer
// should not need either. Scans rather than pg_stat_database's transaction count: that would
// count pg-boss's polls, and a query that reads five tables would count once. The pg peer reads
// a copy of that database (see the bench), so these counts are the service's alone.
//
// A backend publishes its counts at the end of a transaction at most once a second; one that goes
// idle with counts not yet published keeps them up to 10 s (PostgreSQL 15's PGSTAT_IDLE_INTERVAL).
// settle() waits for the counts of a piece of work without waiting those 10 s: a second after the
// work, it makes the service run a statement on each of its pool's connections (GET /health, whose
// `select 1` reads no table, so the pokes add nothing to the counts; its check of pg-boss's
// schema is not counted), and a transaction that ends a second after a backend's last
// publication publishes everything it holds.
import pg from 'pg'

export interface SqlCount {
  postsReads: number
  generationReads: number
  /** Reads of every other table of the service. */
  otherReads: number
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)))

/** Longer than PostgreSQL keeps an idle backend's counts unpublished. */
const IDLE_PUBLICATION_MS = 10_500

export interface SqlCounter {
  read(): Promise<SqlCount>
  /** Returns once the service's connections have published the counts of all work until `workEnded` (ms since the epoch). */
  settle(serverUrl: string, workEnded: number): Promise<void>
  close(): Promise<void>
}

export async function openSqlCounter(databaseUrl: string, poolMax: number): Promise<SqlCounter> {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: 'bench-sql-counter' })
  await client.connect()
  return {
    async read() {
      await client.query('select pg_stat_clear_snapshot()')
      const { rows } = await client.query<{ table: string; reads: string }>(
        `select schemaname || '.' || relname as table, coalesce(seq_scan, 0) + coalesce(idx_scan, 0) as reads
         from pg_stat_user_tables where schemaname <> 'pgboss'`,
      )
      const count: SqlCount = { postsReads: 0, generationReads: 0, otherReads: 0 }
      for (const { table, reads } of rows) {
        const part =
          table === 'public.posts'
            ? 'postsReads'
            : table === 'public.list_generations'
              ? 'generationReads'
              : 'otherReads'
        count[part] += Number(reads)
      }
      return count
    },

    async settle(serverUrl, workEnded) {
      await sleep(workEnded + 1_100 - Date.now())
      const poked = Date.now()
      while (Date.now() < poked + IDLE_PUBLICATION_MS) {
        // Twice as many at once as the pool holds, so that every connection takes one.
        await Promise.all(
          Array.from({ length: 2 * poolMax }, async () => {
            await (await fetch(`${serverUrl}/health`)).arrayBuffer()
          }),
        )
        // The service's pool connections (src/db/database.ts names them) that ran nothing since
        // the first poke but did within the last 10 s: their counts may be unpublished still.
        const { rows } = await client.query<{ waiting: number }>(
          `select count(*)::int as waiting from pg_stat_activity
           where datname = current_database() and application_name = 'blog-api'
             and state_change >= now() - make_interval(secs => $1) and state_change < $2`,
          [IDLE_PUBLICATION_MS / 1000, new Date(poked)],
        )
        if (rows[0]!.waiting === 0) return
        await sleep(200)
      }
    },

    close: () => client.end(),
  }
}
