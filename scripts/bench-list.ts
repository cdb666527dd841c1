// `npm run bench:list`: listPosts at 10 000 posts and then at a million, on PostgreSQL
// (DATABASE_URL names the server; the benchmark works in a database of its own and drops it), and
// every figure at a million as a ratio to the same figure at 10 000. Posts are made in SQL, since a
// million HTTP requests would take an hour; everything is then read over HTTP. A deep page costs
// what the first page costs when paging is keyset on an index, and far more with an offset scan.
//
// Only figures whose cost can depend on the post count get a verdict: lists read from the
// database (on a server with its caches off, requests spread over limits so that none is answered
// from another's load, and searches and admins' lists, which are never cached). /ping, getPost
// cached and the cached list pages are printed without one. Both servers are started afresh for
// each size, after the list generation was moved on as any write would, so nothing cached at one
// size is served at the next. That is checked: before any figure, each cached page is fetched once
// and must be the database's (the server with its caches off), and the cached server's list cache
// must count a miss for every one of them (GET /metrics), so none came from an earlier cache. The
// service's reads of its tables are counted during each figure (scripts/bench/equal-work.ts).
import pg from 'pg'
import { scratchPostgres } from './bench/database.ts'
import { formatFairness, makeEqualWork, type Fairness, type FigureSpec } from './bench/equal-work.ts'
import { formatFigure, type Figure } from './bench/measure.ts'
import { BENCH_ADMIN, seed } from './bench/seed.ts'
import { startServer, type RunningServer } from './bench/server.ts'
import { openSqlCounter } from './bench/sql-count.ts'
import { encodeCursor } from '../src/cursor.ts'

/** The sizes measured, in order; BENCH_POSTS replaces the second (BENCH_POSTS=0: the first alone). */
const LARGE = Number(process.env.BENCH_POSTS ?? 1_000_000)
const SIZES = LARGE > 10_000 ? [10_000, LARGE] : [10_000]
const DURATION = Number(process.env.BENCH_DURATION_SECONDS ?? 5)
const CONNECTIONS = 4
/** The server's pool (DATABASE_POOL_MAX's default). */
const POOL_MAX = 10
/** Each list figure's requests take limits 16 to 25 in turn: more distinct pages than connections. */
const LIMITS = Array.from({ length: 10 }, (_, index) => 16 + index)

/**
 * Adds posts `from + 1` to `to`, with the html the service renders from their bodies (one
 * paragraph: checked identical), so that its render-posts job (src/jobs/render-posts.ts) has no
 * backlog to work through, reading and writing posts, while figures are measured. 90 % published,
 * 5 % drafts, 5 % scheduled; one publication a minute going back in time, so later posts are older
 * and the newest stay the newest. One post in 10 000 (all published) mentions a rare word, for a
 * search with few matches. Every post is in one of the 19 topics; the first size also puts 100
 * published posts in "Rare".
 */
async function grow(sql: pg.Client, from: number, to: number) {
  await sql.query(
    `
    with authors as (select array_agg(id) ids from users where email like 'author%@bench.example')
    insert into posts (id, author_id, title, body, html, excerpt, status, published_at, created_at, updated_at)
    select gen_random_uuid(), authors.ids[1 + i % 200], 'Post number ' || i, body, '<p>' || rtrim(body) || E'</p>\n',
           'Excerpt of post ' || i,
           (case when i % 20 = 0 then 'draft' when i % 20 = 1 then 'scheduled' else 'published' end)::"PostStatus",
           case when i % 20 = 0 then null else now() - make_interval(mins => i) end,
           now() - make_interval(mins => i), now()
    from generate_series($1::int, $2::int) i, authors,
      lateral (select 'Body of post ' || i || ' about ' || (array['gardens','rivers','engines','poetry','cities'])[1 + i % 5] || '. '
        || repeat('Words of prose. ', 12) || case when i % 10000 = 7 then ' Zeppelins.' else '' end as body) b`,
    [from + 1, to],
  )
  await sql.query(`
    insert into post_categories (post_id, category_id)
    select p.id, c.ids[1 + abs(hashtext(p.id::text)) % 19]
    from posts p, (select array_agg(id order by slug) ids from categories where slug like 'topic-%') c
    where not exists (select 1 from post_categories pc where pc.post_id = p.id)`)
  if (from === 0) {
    await sql.query(`
      insert into post_categories (post_id, category_id)
      select p.id, (select id from categories where slug = 'rare') from posts p where p.status = 'published' order by random() limit 100`)
  }
  await sql.query(
    `update posts set search_vector = to_tsvector('english', title || ' ' || body) where search_vector is null`,
  )
  const { rows: unrendered } = await sql.query(`select count(*)::int as n from posts where html is null`)
  if (unrendered[0].n !== 0) throw new Error(`${unrendered[0].n} seeded posts have no html`)
  // What any write that changes lists does (src/db/list-generation.ts): no page read before is current.
  await sql.query(`
    insert into list_generations (id, value, changed_at) values (1, 1, clock_timestamp())
    on conflict (id) do update set value = list_generations.value + 1, changed_at = clock_timestamp()`)
  await sql.query('vacuum analyze')
  // Seeding leaves its pages dirty in PostgreSQL's buffers, which the checkpointer would write out
  // over the next minutes, on the cores the measurement needs: they are written now instead.
  // CHECKPOINT needs a superuser or pg_checkpoint: without either, the bench warns and measures anyway.
  await sql.query('checkpoint').catch((error: Error) => console.warn(`no checkpoint after seeding: ${error.message}`))
}

interface Measured {
  figures: Figure[]
  /** Whether each figure's cost can depend on the post count: only those get a verdict. */
  judged: boolean[]
  fairness: Fairness[]
  /**
   * Cached pages that differ from what the server with its caches off reads from the database, or
   * that the list cache answered from memory on their first read at this size.
   */
  stale: string[]
}

async function measureAll(
  servers: { cached: RunningServer; uncached: RunningServer },
  databaseUrl: string,
  sql: pg.Client,
  posts: number,
  authorId: string,
  admin: Record<string, string>,
  postId: string,
): Promise<Measured> {
  // A position 80 % of the way down the published list, as a client paging that far would hold.
  const { rows } = await sql.query(
    `select published_at, id from posts where status = 'published' order by published_at desc, id desc offset $1 limit 1`,
    [Math.floor(posts * 0.9 * 0.8)],
  )
  const deepCursor = encodeCursor({ at: rows[0].published_at, id: rows[0].id })
  const spreadOver = (query: string) => LIMITS.map((limit) => `/posts?limit=${limit}${query}`)
  // Published lists without a search: what the list cache holds.
  const cacheable: [string, string[]][] = [
    ['first page', spreadOver('')],
    ['page 80 % deep (cursor)', spreadOver(`&cursor=${deepCursor}`)],
    ['category filter (1 in 19)', spreadOver('&category=topic-3')],
    ['category filter (100 posts)', spreadOver('&category=rare')],
    ['author filter', spreadOver(`&author=${authorId}`)],
  ]
  const cachedSpecs: FigureSpec[] = [
    { name: 'GET /ping (baseline)', paths: ['/ping'], work: 'cached' },
    ...cacheable.map(([name, paths]): FigureSpec => ({
      name: `${name}, cached`,
      paths,
      work: 'cached',
      readsGeneration: true,
    })),
    { name: 'getPost, cached', paths: [`/posts/${postId}`], work: 'cached' },
  ]
  const uncachedSpecs: FigureSpec[] = [
    ...cacheable.map(([name, paths]): FigureSpec => ({ name: `${name}, cache off`, paths, work: 'uncached' })),
    { name: 'search, common word', paths: spreadOver('&q=rivers'), work: 'uncached' },
    { name: 'search, rare word (1 in 10 000)', paths: spreadOver('&q=zeppelin'), work: 'uncached' },
    { name: 'search, one post', paths: spreadOver(`&q=${encodeURIComponent('"post 4242"')}`), work: 'uncached' },
    { name: 'drafts of all authors (admin)', paths: spreadOver('&status=draft'), work: 'uncached', headers: admin },
    {
      name: 'scheduled of all authors (admin)',
      paths: spreadOver('&status=scheduled'),
      work: 'uncached',
      headers: admin,
    },
  ]

  // Nothing cached at an earlier size: the cached pages must be those the database gives now, each
  // read from the database (a miss) on its first read here. The paths are all distinct.
  const stale: string[] = []
  const missesBefore = await listCacheMisses(servers.cached.url)
  for (const [, paths] of cacheable)
    for (const path of paths) {
      const [cached, fresh] = await Promise.all(
        [servers.cached, servers.uncached].map(async (server) => {
          const { data, meta } = (await (await fetch(`${server.url}${path}`)).json()) as {
            data: unknown
            meta: { page: unknown }
          }
          return JSON.stringify([data, meta.page])
        }),
      )
      if (cached !== fresh) stale.push(path)
    }
  const pages = cacheable.flatMap(([, paths]) => paths).length
  const misses = (await listCacheMisses(servers.cached.url)) - missesBefore
  if (misses !== pages) stale.push(`the list cache counted ${misses} misses for the first reads of ${pages} pages`)

  const counter = await openSqlCounter(databaseUrl, POOL_MAX)
  try {
    const equal = makeEqualWork({ duration: DURATION, warmSeconds: 1, connections: CONNECTIONS, counter })
    console.log(`listPosts at ${posts} posts, ${DURATION} s each, ${CONNECTIONS} connections`)
    const figures: Figure[] = []
    for (const [specs, server] of [
      [cachedSpecs, servers.cached],
      [uncachedSpecs, servers.uncached],
    ] as const) {
      for (const spec of specs) {
        const { ours } = await equal.compare(spec, server.url, {})
        console.log(formatFigure(ours))
        figures.push(ours)
      }
    }
    return {
      figures,
      judged: [...cachedSpecs.map(() => false), ...uncachedSpecs.map(() => true)],
      fairness: equal.fairness,
      stale,
    }
  } finally {
    await counter.close()
  }
}

/** The cached server's list cache misses so far (blog_list_cache_misses_total). */
async function listCacheMisses(serverUrl: string) {
  const metrics = await (await fetch(`${serverUrl}/metrics`)).text()
  const misses = /^blog_list_cache_misses_total (\d+)$/m.exec(metrics)?.[1]
  if (misses === undefined) throw new Error('GET /metrics gave no blog_list_cache_misses_total')
  return Number(misses)
}

if (!process.env.DATABASE_URL) {
  console.error('npm run bench:list needs DATABASE_URL (a PostgreSQL server; a scratch database is made on it)')
  process.exit(2)
}

const database = await scratchPostgres(process.env.DATABASE_URL)
const sql = new pg.Client({ connectionString: database.env.DATABASE_URL })
/** Both servers, started afresh: empty caches. */
const startServers = async () => ({
  cached: await startServer({ ...database.env, ...BENCH_ADMIN }),
  // POST_CACHE_MAX_ENTRIES=0 turns off the post, slug, list and feed caches (src/services/caches.ts).
  uncached: await startServer({ ...database.env, ...BENCH_ADMIN, POST_CACHE_MAX_ENTRIES: '0' }),
})
let servers: Awaited<ReturnType<typeof startServers>> | undefined
const stopServers = async () => {
  await Promise.all([servers?.cached.stop(), servers?.uncached.stop()])
  servers = undefined
}
try {
  servers = await startServers()
  const seeded = await seed(servers.cached.url, 1)
  await sql.connect()
  // 200 authors sharing the seeded author's password hash; 20 categories, one of them rare.
  await sql.query(`
    insert into users (id, email, name, password_hash, updated_at)
    select gen_random_uuid(), 'author' || i || '@bench.example', 'Author ' || i, u.password_hash, now()
    from generate_series(1, 200) i, (select password_hash from users limit 1) u`)
  await sql.query(`
    insert into categories (id, name, slug, updated_at)
    select gen_random_uuid(), 'Topic ' || i, 'topic-' || i, now() from generate_series(1, 19) i`)
  await sql.query(
    `insert into categories (id, name, slug, updated_at) values (gen_random_uuid(), 'Rare', 'rare', now())`,
  )
  const {
    rows: [author],
  } = await sql.query(`select id from users where email = 'author7@bench.example'`)
  // An admin lists every author's drafts and scheduled posts; signed in anew for each size, as
  // access tokens last 10 minutes and seeding a million posts takes longer.
  const signInAdmin = async () => {
    const login = await fetch(`${servers!.cached.url}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: BENCH_ADMIN.ADMIN_EMAIL, password: BENCH_ADMIN.ADMIN_PASSWORD }),
    })
    return {
      authorization: `Bearer ${((await login.json()) as { data: { accessToken: string } }).data.accessToken}`,
    }
  }

  let made = 0
  const results: ({ posts: number } & Measured)[] = []
  for (const size of SIZES) {
    await stopServers()
    const started = Date.now()
    await grow(sql, made, size)
    made = size
    console.log(`\nseeded ${size} posts in ${Math.round((Date.now() - started) / 1000)} s`)
    servers = await startServers()
    const admin = await signInAdmin()
    const measured = await measureAll(
      servers,
      database.env.DATABASE_URL!,
      sql,
      size,
      author.id as string,
      admin,
      seeded.postIds[0]!,
    )
    console.log(
      measured.stale.length === 0
        ? `  every cached page is the database's at ${size} posts, each read from it first (a list cache miss)`
        : `  STALE cached pages at ${size} posts: ${measured.stale.join(', ')}`,
    )
    console.log(formatFairness(measured.fairness))
    results.push({ posts: size, ...measured })
  }
  if (results.length === 2) {
    const [small, large] = results as [(typeof results)[0], (typeof results)[0]]
    console.log(
      `\n${large.posts} posts against ${small.posts} (target: every list figure whose cost can depend on the post count within 1.5×; the others without a verdict):`,
    )
    const fair = [...small.fairness, ...large.fairness].every((check) => check.problems.length === 0)
    const fresh = large.stale.length === 0
    for (const [index, figure] of large.figures.entries()) {
      const before = small.figures[index]!
      const slower = before.requestsPerSecond / figure.requestsPerSecond
      const clean = figure.non2xx + figure.errors + before.non2xx + before.errors === 0
      const verdict = !large.judged[index] ? '    ' : slower <= 1.5 && clean && fair && fresh ? 'met ' : 'MISS'
      console.log(
        `  ${verdict}  ${figure.name.padEnd(36)} ${slower.toFixed(2)}× slower; p99 ${before.p99Ms} → ${figure.p99Ms} ms`,
      )
    }
  }
  await stopServers()
} finally {
  await stopServers()
  await sql.end().catch(() => {})
  await database.drop()
}
