// `npm run bench:list`: listPosts at 10 000 posts and then at a million, on PostgreSQL
// (DATABASE_URL names the server; the benchmark works in a database of its own and drops it), and
// every figure at a million as a ratio to the same figure at 10 000. Posts are made in SQL, since a
// million HTTP requests would take an hour; everything is then read over HTTP. A deep page costs
// what the first page costs when paging is keyset on an index, and far more with an offset scan.
import pg from 'pg'
import { scratchPostgres } from './bench/database.ts'
import { formatFigure, measure, type Figure } from './bench/measure.ts'
import { BENCH_ADMIN, seed } from './bench/seed.ts'
import { startServer } from './bench/server.ts'
import { encodeCursor } from '../src/cursor.ts'

/** The sizes measured, in order; BENCH_POSTS replaces the second (BENCH_POSTS=0: the first alone). */
const LARGE = Number(process.env.BENCH_POSTS ?? 1_000_000)
const SIZES = LARGE > 10_000 ? [10_000, LARGE] : [10_000]
const DURATION = Number(process.env.BENCH_DURATION_SECONDS ?? 5)

/**
 * Adds posts `from + 1` to `to`. 90 % published, 5 % drafts, 5 % scheduled; one publication a
 * minute going back in time, so later posts are older and the newest stay the newest. One post in
 * 10 000 (all published) mentions a rare word, for a search with few matches. Every post is in one
 * of the 19 topics; the first size also puts 100 published posts in "Rare".
 */
async function grow(sql: pg.Client, from: number, to: number) {
  await sql.query(
    `
    with authors as (select array_agg(id) ids from users where email like 'author%@bench.example')
    insert into posts (id, author_id, title, body, excerpt, status, published_at, created_at, updated_at)
    select gen_random_uuid(), authors.ids[1 + i % 200], 'Post number ' || i,
           'Body of post ' || i || ' about ' || (array['gardens','rivers','engines','poetry','cities'])[1 + i % 5] || '. ' || repeat('Words of prose. ', 12)
             || case when i % 10000 = 7 then ' Zeppelins.' else '' end,
           'Excerpt of post ' || i,
           (case when i % 20 = 0 then 'draft' when i % 20 = 1 then 'scheduled' else 'published' end)::"PostStatus",
           case when i % 20 = 0 then null else now() - make_interval(mins => i) end,
           now() - make_interval(mins => i), now()
    from generate_series($1::int, $2::int) i, authors`,
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
  await sql.query('vacuum analyze')
  // Seeding leaves its pages dirty in PostgreSQL's buffers, which the checkpointer would write out
  // over the next minutes, on the cores the measurement needs: they are written now instead.
  // CHECKPOINT needs a superuser or pg_checkpoint: without either, the bench warns and measures anyway.
  await sql.query('checkpoint').catch((error: Error) => console.warn(`no checkpoint after seeding: ${error.message}`))
}

async function measureAll(
  url: string,
  uncachedUrl: string,
  sql: pg.Client,
  posts: number,
  authorId: string,
  admin: Record<string, string>,
  postId: string,
): Promise<Figure[]> {
  // A position 80 % of the way down the published list, as a client paging that far would hold.
  const { rows } = await sql.query(
    `select published_at, id from posts where status = 'published' order by published_at desc, id desc offset $1 limit 1`,
    [Math.floor(posts * 0.9 * 0.8)],
  )
  const deepCursor = encodeCursor({ at: rows[0].published_at, id: rows[0].id })
  const scenarios: [string, string, Record<string, string>?][] = [
    ['GET /ping (baseline)', '/ping'],
    ['first page', '/posts?limit=20'],
    ['page 80 % deep (cursor)', `/posts?limit=20&cursor=${deepCursor}`],
    ['category filter (1 in 19)', '/posts?limit=20&category=topic-3'],
    ['category filter (100 posts)', '/posts?limit=20&category=rare'],
    ['author filter', `/posts?limit=20&author=${authorId}`],
    ['search, common word', '/posts?limit=20&q=rivers'],
    ['search, rare word (1 in 10 000)', '/posts?limit=20&q=zeppelin'],
    ['search, one post', `/posts?limit=20&q=${encodeURIComponent('"post 4242"')}`],
    ['drafts of all authors (admin)', '/posts?limit=20&status=draft', admin],
    ['scheduled of all authors (admin)', '/posts?limit=20&status=scheduled', admin],
    ['getPost, cached', `/posts/${postId}`],
  ]
  // The published lists come from the list cache when hot; the same lists read from the database
  // every time, on a server with its caches off, show what a cold page costs at this size.
  const cacheable = scenarios.slice(1, 6).map(([name, path]) => [`${name}, cache off`, path] as const)
  console.log(`listPosts at ${posts} posts, ${DURATION} s each, 4 connections`)
  const figures: Figure[] = []
  for (const [name, path, headers] of scenarios) {
    const figure = await measure(name, { url: `${url}${path}`, headers, connections: 4, duration: DURATION })
    console.log(formatFigure(figure))
    figures.push(figure)
  }
  for (const [name, path] of cacheable) {
    const figure = await measure(name, { url: `${uncachedUrl}${path}`, connections: 4, duration: DURATION })
    console.log(formatFigure(figure))
    figures.push(figure)
  }
  return figures
}

if (!process.env.DATABASE_URL) {
  console.error('npm run bench:list needs DATABASE_URL (a PostgreSQL server; a scratch database is made on it)')
  process.exit(2)
}

const database = await scratchPostgres(process.env.DATABASE_URL)
const sql = new pg.Client({ connectionString: database.env.DATABASE_URL })
try {
  const server = await startServer({ ...database.env, ...BENCH_ADMIN })
  const uncached = await startServer({ ...database.env, ...BENCH_ADMIN, POST_CACHE_MAX_ENTRIES: '0' })
  const seeded = await seed(server.url, 1)
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
    const login = await fetch(`${server.url}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: BENCH_ADMIN.ADMIN_EMAIL, password: BENCH_ADMIN.ADMIN_PASSWORD }),
    })
    return {
      authorization: `Bearer ${((await login.json()) as { data: { accessToken: string } }).data.accessToken}`,
    }
  }

  let made = 0
  const results: { posts: number; figures: Figure[] }[] = []
  for (const size of SIZES) {
    const started = Date.now()
    await grow(sql, made, size)
    made = size
    console.log(`\nseeded ${size} posts in ${Math.round((Date.now() - started) / 1000)} s`)
    const admin = await signInAdmin()
    const figures = await measureAll(
      server.url,
      uncached.url,
      sql,
      size,
      author.id as string,
      admin,
      seeded.postIds[0]!,
    )
    results.push({ posts: size, figures })
  }
  if (results.length === 2) {
    const [small, large] = results as [(typeof results)[0], (typeof results)[0]]
    console.log(`\n${large.posts} posts against ${small.posts} (target: every list figure within 1.5×):`)
    for (const [index, figure] of large.figures.entries()) {
      const before = small.figures[index]!
      const slower = before.requestsPerSecond / figure.requestsPerSecond
      const clean = figure.non2xx + figure.errors + before.non2xx + before.errors === 0
      console.log(
        `  ${slower <= 1.5 && clean ? 'met ' : 'MISS'}  ${figure.name.padEnd(36)} ${slower.toFixed(2)}× slower; p99 ${before.p99Ms} → ${figure.p99Ms} ms`,
      )
    }
  }
  await Promise.all([server.stop(), uncached.stop()])
} finally {
  await sql.end().catch(() => {})
  await database.drop()
}
