// One instance's resident memory on PostgreSQL, as `npm start` runs it (dist/, its allocator and V8
// settings, NODE_ENV=production), for docs/operations.md's sizing: idle on a new database, idle
// after writing posts, the peak under reads (autocannon, 20 connections, GET /posts/{id} over every
// post and list pages), and after; with the database connections it holds, by kind.
//   npx node --import=tsx scripts/measure-memory.ts
// DATABASE_URL names the server (default postgres://root@127.0.0.1:5432/postgres; a scratch database
// is made there and dropped); MEASURE_POSTS (1000), MEASURE_SECONDS (20); MEASURE_ENV, JSON, gives
// the server more settings, e.g. '{"POST_CACHE_MAX_ENTRIES":"0"}'.
import autocannon from 'autocannon'
import pg from 'pg'
import { scratchPostgres } from './bench/database.ts'
import { readMemory, watchPeakRss } from './bench/memory.ts'
import { BENCH_ADMIN, BENCH_WRITE_BUDGET, seed } from './bench/seed.ts'
import { startServer } from './bench/server.ts'

const given = process.env.DATABASE_URL ?? 'postgres://root@127.0.0.1:5432/postgres'
const posts = Number(process.env.MEASURE_POSTS ?? 1000)
const seconds = Number(process.env.MEASURE_SECONDS ?? 20)
const extra = JSON.parse(process.env.MEASURE_ENV ?? '{}') as Record<string, string>
const settle = () => new Promise((resolve) => setTimeout(resolve, 5000))

const database = await scratchPostgres(given)
const watcher = new pg.Client({ connectionString: given })
await watcher.connect()
const name = new URL(database.env.DATABASE_URL!).pathname.slice(1)
const connections = async () => {
  const { rows } = await watcher.query<{ kind: string; n: number }>(
    `select application_name as kind, count(*)::int as n from pg_stat_activity where datname = $1 group by 1 order by 1`,
    [name],
  )
  return Object.fromEntries(rows.map((row) => [row.kind, row.n]))
}
try {
  const server = await startServer({
    ...database.env,
    NODE_ENV: 'production',
    MAIL_TO_FILES: 'true',
    DATA_DIR: '.scratch/measure-memory',
    PUBLIC_URL: 'http://127.0.0.1',
    EMAIL_VERIFICATION_URL: 'https://blog.example.org/verify?token={token}',
    PASSWORD_RESET_URL: 'https://blog.example.org/reset?token={token}',
    ...BENCH_ADMIN,
    // The seed writes MEASURE_POSTS posts from one account as fast as it can.
    ...BENCH_WRITE_BUDGET,
    ...extra,
  })
  try {
    const pid = server.child.pid!
    await settle()
    console.log('idle, new database:', await readMemory(pid, server.url), await connections())
    const seeded = await seed(server.url, posts)
    await settle()
    console.log(`idle, ${posts} posts written:`, await readMemory(pid, server.url))
    const paths = [
      ...seeded.postIds.map((id) => `/posts/${id}`),
      ...[10, 20, 50, 100].map((limit) => `/posts?limit=${limit}`),
      ...seeded.categorySlugs.map((slug) => `/posts?category=${slug}`),
    ]
    let next = 0
    const peak = watchPeakRss(pid)
    const result = await autocannon({
      url: server.url,
      connections: 20,
      duration: seconds,
      requests: [{ setupRequest: (request) => ({ ...request, path: paths[next++ % paths.length] }) }],
    })
    console.log('peak RSS under the reads (MiB):', peak.stop(), await connections())
    console.log('req/s:', result.requests.average, 'errors:', result.errors, 'non-2xx:', result.non2xx)
    const metrics = await (await fetch(`${server.url}/metrics`)).text()
    console.log(metrics.match(/^blog_(post|list)_cache_(bytes|entries) .*$/gm)?.join('\n'))
    await settle()
    await settle()
    console.log('10 s later:', await readMemory(pid, server.url))
  } finally {
    await server.stop()
  }
} finally {
  await watcher.end()
  await database.drop()
}
