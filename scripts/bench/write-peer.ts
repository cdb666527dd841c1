// The bare write peer, in a process of its own (started by scripts/bench/writes.ts, like the read
// peers of peer-server.ts): node:http and `pg`, answering the three writes of `npm run bench -- writes`
// with the very statements our service sends for them, read off PostgreSQL's statement log
// (`log_statement = 'all'` on a database of the service's, one request of each, the server as the
// bench runs it: BENCH_WRITE_BUDGET, BENCH_COMMENTS, revisions on). Same text (Prisma's own SQL
// for the statements Prisma writes, ours for the raw ones; only white space differs), same
// parameters, same order, same transaction boundaries, on a pool of the same size: the database
// does the same work, row for row (the bench compares PostgreSQL's per-table counts of both).
// What it leaves out is our application's own work: routing, JSON Schema validation, the hooks,
// markdown rendering (its html is the same paragraphs in <p>, which is what our renderer makes of
// the bench's plain-text bodies), caches, serialization through the response schema.
//
// Every write, as our server sends it:
//   1. the caller's session, joined with its user (authorization: src/auth/sessions/session-store.ts
//      liveSession), after the access token's HS256 signature and claims are checked here with
//      node:crypto (our server: @fastify/jwt's fast-jwt; the same HMAC, about the same CPU), and the
//      session's last_used_at moved on once a minute (markSessionUsed, LAST_USED_STEP_SECONDS);
//   2. the write budget's upsert (src/auth/rate-limit-store.ts countOne), whose count gives the
//      RateLimit fields and a 429 past the budget;
//   then, per write, in one transaction (BEGIN … COMMIT, on one pooled connection):
//
// createComment (src/content/comments/comment-store.ts create, comment moderation off and no flood
// interval, as the bench's servers run: BENCH_COMMENTS, so neither the flood upsert nor first-time's
// lookup runs, on either side):
//   BEGIN; the post locked `for update` (lockPost); the duplicate check (Prisma's findFirst on
//   post, author, body hash, parent); the insert with its time and the post's count in one
//   statement (insertCounted); the webhook subscribers of comment.created (subscribersIn), and for
//   each endpoint the event with its NOTIFY (insertEventIn) and pg-boss's job insert (pg-boss 10's
//   send, its SQL and parameters as logged); COMMIT. 9 statements in all with the one after it
//   (test/content/comments/round-trips.test.ts), 2 more an endpoint.
// createPost (src/content/posts/post-writes.ts createPost, status published, categories given):
//   BEGIN; the statement timeout (set_config, DATABASE_TIMEOUT_MS × 0.9); the categories locked
//   `for key share`; Prisma's post insert and its createMany of the filings; (no post_media to
//   clear on a new post: showMedia sends nothing); the author's slug lock (advisory), the check
//   for an own draft with the slug, the slug's claim (settleSlug); the search vector (reindex); the
//   post read back (post-write-store.ts loadPostInOne: one statement); the newest revision's
//   number, the revision insert, the pruning (record-revision.ts); the subscribers of
//   post.published (and event, jobs); COMMIT. 18 statements in all (test/content/posts/round-trips.test.ts).
// updatePost (post-writes.ts updatePost, a new body, no If-Match: it is optional):
//   before the transaction, the post's author and status (findOwnerAndStatus: rights are checked
//   before the body is rendered); BEGIN; the statement timeout; the post locked `for update`
//   (lockForEdit) and read (one statement); Prisma's update of the post; (post_media cleared only
//   when the post shows media: the bench's show none); the search vector; the post read again; the
//   newest revision's number, the revision insert, the pruning; the subscribers of post.updated
//   (and event, jobs); COMMIT. 16 statements in all.
//
// After the commit, as our server does once a write changed what posts or lists show
// (src/content/posts/post-changes.ts): the lists' generation moved on (one upsert) and the other
// instances told (pg_notify), in one statement of its own outside the transaction, as ours runs
// it: inside, the generation's one row would stay locked until the commit and every write of the
// server would queue behind it, which ours does not do.
//
// Answers: the same envelope, the same data (the post or comment as read back, keys in the same
// order, an ETag on posts computed alike), the static headers our server sends (PEER_HEADERS, as
// captured from one of its answers), a request id, and the RateLimit fields: the same bytes give or take a few.
// GET /poke runs `select 1` (the bench's settling of PostgreSQL's statistics); GET /trace, with
// PEER_TRACE=1, the statements sent since the last one. Anything else: 404.
//
// Prints `{"port": N}` on stdout once listening.
import { createHash, createHmac, createSecretKey, randomUUID, timingSafeEqual } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import pg from 'pg'
import { bodyHash } from '../../src/content/comments/comment-policy.ts'
import { deriveExcerpt } from '../../src/content/posts/excerpt.ts'
import { searchText } from '../../src/content/search/search-text.ts'
import { slugOfTitle } from '../../src/content/slugs/post-slugs.ts'
import { uuidV5OfUrl } from '../../src/content/slugs/uuid-v5.ts'
import { uuidV7 } from '../../src/db/uuid-v7.ts'

const env = (name: string, fallback?: string) => {
  const value = process.env[name] ?? fallback
  if (value === undefined) throw new Error(`${name} is required`)
  return value
}

const pool = new pg.Pool({
  connectionString: env('PEER_DATABASE_URL'),
  max: Number(env('PEER_POOL_MAX', '10')),
  application_name: 'bench-write-peer',
})
const jwtKey = createSecretKey(Buffer.from(env('PEER_JWT_SECRET')))
const ISSUER = env('PEER_JWT_ISSUER', 'blog-api')
const AUDIENCE = env('PEER_JWT_AUDIENCE', 'blog-api-clients')
const BUDGET = Number(env('PEER_WRITE_BUDGET'))
const BUDGET_WINDOW_SECONDS = Number(env('PEER_WRITE_BUDGET_WINDOW_SECONDS'))
const BUDGET_POLICY = `"writes";q=${BUDGET};w=${BUDGET_WINDOW_SECONDS}`
/** DATABASE_TIMEOUT_MS × 0.9, as src/content/posts/post-store.ts sets it on every post write. */
const STATEMENT_TIMEOUT = String(Math.floor(Number(env('PEER_DATABASE_TIMEOUT_MS', '5000')) * 0.9))
const REVISIONS_MAX = Number(env('PEER_REVISIONS_MAX', '50'))
const REVISIONS_MAX_BYTES = Number(env('PEER_REVISIONS_MAX_BYTES', String(16 * 1024 * 1024)))
/** src/auth/sessions/sessions.ts LAST_USED_STEP_SECONDS. */
const LAST_USED_STEP_SECONDS = 60
/** Our server's headers that are the same on every answer (security headers, api-version, …). */
const STATIC_HEADERS = JSON.parse(env('PEER_HEADERS', '{}')) as Record<string, string>
/** Like src/content/posts/post-changes.ts's sender: messages carry who sent them. */
const SENDER = randomUUID()

/**
 * PEER_TRACE=1: every statement's text is kept, and GET /trace answers (and forgets) them, in the
 * order sent: test/scripts/write-peer.test.ts compares them with our server's, one request at a time.
 */
let traced: string[] | null = null
if (process.env.PEER_TRACE === '1') {
  traced = []
  const query = pg.Client.prototype.query
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const [first] = args
    traced?.push(typeof first === 'string' ? first : String((first as { text?: string } | undefined)?.text))
    return (query as (...args: unknown[]) => unknown).apply(this, args)
  } as typeof query
}

type Db = Pick<pg.PoolClient, 'query'>
type Row = Record<string, unknown>

class Refusal extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
  ) {
    super(code)
  }
}

// ---- The statements, as our server sends them ----

const SESSION_SQL = `
  select u.role, u.email_verified as "emailVerified", s.last_used_at as "lastUsedAt"
  from sessions s join users u on u.id = s.user_id
  where s.id = $1::uuid and s.user_id = $2::uuid and s.revoked_at is null and s.expires_at > now()`
const SESSION_USED_SQL = `
  update sessions set last_used_at = now()
  where id = $1::uuid and last_used_at <= now() - $2 * interval '1 second'`
const BUDGET_SQL = `
  insert into rate_limit_counters (key, count, reset_at)
  values ($1, 1, now() + $2 * interval '1 millisecond')
  on conflict (key) do update set
    count = case when rate_limit_counters.reset_at <= now() then 1 else rate_limit_counters.count + 1 end,
    reset_at = case when rate_limit_counters.reset_at <= now() then excluded.reset_at else rate_limit_counters.reset_at end
  returning count, ceil(extract(epoch from (reset_at - now())) * 1000)::int as ttl`
const TIMEOUT_SQL = `select set_config('statement_timeout', $1, true)`

const LOCK_COMMENTED_POST_SQL = `
  select author_id::text as "authorId", status, comments_open as "commentsOpen"
  from posts where id = $1::uuid for update`
const TWIN_COMMENT_SQL = `SELECT "public"."comments"."id" FROM "public"."comments" WHERE ("public"."comments"."post_id" = $1 AND "public"."comments"."author_id" = $2 AND "public"."comments"."body_hash" = $3 AND "public"."comments"."parent_id" IS NULL) LIMIT $4 OFFSET $5`
const INSERT_COMMENT_SQL = `
  with next as (
    select greatest(clock_timestamp()::timestamptz(3),
      (select max(created_at) + interval '1 millisecond' from comments where post_id = $1::uuid)) as at
  ), inserted as (
    insert into comments (id, post_id, author_id, parent_id, body, status, announced, body_hash, created_at, updated_at)
    select $2::uuid, $3::uuid, $4::uuid, $5::uuid, $6,
      $7::"CommentStatus", $8, $9, at, at
    from next
    returning id, post_id, author_id, parent_id, body, status, announced, body_hash, created_at, updated_at
  ), counted as (
    update posts set comment_count = comment_count + 1, updated_at = clock_timestamp()::timestamptz(3)
    where id = $10::uuid and $11
  )
  select i.id::text as id, i.post_id::text as "postId", i.author_id::text as "authorId",
    i.parent_id::text as "parentId", i.body, i.status::text as status, i.announced, i.body_hash as "bodyHash",
    i.created_at as "createdAt", i.updated_at as "updatedAt", u.name as "authorName"
  from inserted i join users u on u.id = i.author_id`

const LOCK_CATEGORIES_SQL = `select id from categories where id = any($1::uuid[]) for key share`
const INSERT_POST_SQL = `INSERT INTO "public"."posts" ("id","author_id","title","body","html","excerpt","status","published_at","comment_count","comments_open","created_at","updated_at","slug") VALUES ($1,$2,$3,$4,$5,$6,CAST($7::text AS "public"."PostStatus"),$8,$9,$10,$11,$12,$13) RETURNING "public"."posts"."id"`
/** Prisma's createMany of the filings: one VALUES list. */
const insertFilingsSql = (rows: number) =>
  `INSERT INTO "public"."post_categories" ("post_id","category_id") VALUES ${Array.from({ length: rows }, (_, row) => `($${2 * row + 1},$${2 * row + 2})`).join(', ')}`
const EMPTY_POST_MEDIA_SQL = `delete from post_media where post_id = $1::uuid`
const SLUG_LOCK_SQL = `select pg_advisory_xact_lock(hashtext('post-slugs'), hashtext($1))`
const OWN_DRAFT_SLUG_SQL = `
  select 1 from posts
  where author_id = $1::uuid and slug = $2 and status <> 'published' and id <> $3::uuid`
const CLAIMED_SLUG_SQL = `select 1 from post_slugs where slug = $1 and post_id <> $2::uuid`
const TAKE_SLUG_SQL = `
  insert into post_slugs (slug, post_id, stem, suffix) values ($1, $2::uuid, $3, $4)
  on conflict (slug) do update set used_at = now() where post_slugs.post_id = excluded.post_id
  returning post_id`
const REINDEX_SQL = `update posts set search_vector = to_tsvector('english', $1) where id = $2::uuid`

const OWNER_SQL = `SELECT "public"."posts"."id", "public"."posts"."author_id", "public"."posts"."status"::text FROM "public"."posts" WHERE ("public"."posts"."id" = $1 AND 1=1) LIMIT $2 OFFSET $3`
const LOCK_EDITED_POST_SQL = `select author_id as "authorId", status from posts where id = $1::uuid for update`

// The post as a write reads it back (post-write-store.ts loadPostInOne): one statement.
const LOAD_POST_SQL = `
  select p.id::text as id, p.author_id::text as "authorId", p.title, p.body, p.html, p.excerpt,
    p.status::text as status, p.published_at as "publishedAt", p.publish_job_id::text as "publishJobId",
    p.comment_count as "commentCount", p.comments_open as "commentsOpen", p.created_at as "createdAt",
    p.updated_at as "updatedAt", p.slug, u.name as "authorName",
    coalesce((
      select json_agg(json_build_object('id', c.id, 'name', c.name, 'slug', c.slug))
      from post_categories pc join categories c on c.id = pc.category_id where pc.post_id = p.id
    ), '[]')::text as categories,
    coalesce((
      select json_agg(json_build_object(
        'width', t.width, 'key', i.key, 'imageWidth', i.width, 'height', i.height, 'contentType', i.content_type))
      from post_thumbnails t join images i on i.key = t.image_key where t.post_id = p.id
    ), '[]')::text as thumbnail,
    coalesce((select json_agg(m.media_id) from post_media m where m.post_id = p.id), '[]')::text as media
  from posts p join users u on u.id = p.author_id
  where p.id = $1::uuid`

/** Prisma's update of the fields a write sets (post-write-store.ts update), in the order it writes them. */
const updatePostSql = (columns: string[]) =>
  `UPDATE "public"."posts" SET ${columns
    .map((column, i) =>
      column === 'status' ? `"status" = CAST($${i + 1}::text AS "public"."PostStatus")` : `"${column}" = $${i + 1}`,
    )
    .join(', ')} WHERE ("public"."posts"."id" = $${columns.length + 1} AND 1=1) RETURNING "public"."posts"."id"`

// record-revision.ts, revision-store.ts
const NEWEST_REVISION_SQL = `SELECT "public"."post_revisions"."id", "public"."post_revisions"."number" FROM "public"."post_revisions" WHERE "public"."post_revisions"."post_id" = $1 ORDER BY "public"."post_revisions"."number" DESC LIMIT $2 OFFSET $3`
const INSERT_REVISION_SQL = `INSERT INTO "public"."post_revisions" ("id","post_id","number","created_at","editor_id","changed","title","body","excerpt","slug","status","published_at","category_ids","byte_size") VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,CAST($11::text AS "public"."PostStatus"),$12,$13,$14) RETURNING "public"."post_revisions"."id"`
const PRUNE_REVISIONS_SQL = `
  delete from post_revisions d using (
    select id, row_number() over w as rank, sum(byte_size) over w as bytes
    from post_revisions where post_id = $1::uuid
    window w as (order by number desc)
  ) k
  where d.id = k.id and k.rank > 1 and (k.rank > $2 or k.bytes > $3::bigint)
    and d.number is distinct from (
      select max(number) from post_revisions where post_id = $4::uuid and status = 'published')`

// src/webhooks/webhook-store.ts, webhook-events.ts; pg-boss 10's send (as logged).
const SUBSCRIBERS_SQL = 'select id::text as id from webhook_endpoints where active and $1 = any(events)'
const INSERT_EVENT_SQL = `with event as (insert into webhook_events (id, type, body) values ($1::uuid, $2, $3))
     select pg_notify($4, '')::text`
const BOSS_SEND_SQL = `
    INSERT INTO pgboss.job (
      id,
      name,
      data,
      priority,
      start_after,
      singleton_key,
      singleton_on,
      dead_letter,
      expire_in,
      keep_until,
      retry_limit,
      retry_delay,
      retry_backoff,
      policy
    )
    SELECT
      id,
      j.name,
      data,
      priority,
      start_after,
      singleton_key,
      singleton_on,
      COALESCE(j.dead_letter, q.dead_letter) as dead_letter,
      CASE
        WHEN expire_in IS NOT NULL THEN expire_in::numeric * interval '1s'
        WHEN q.expire_seconds IS NOT NULL THEN q.expire_seconds * interval '1s'
        WHEN expire_in_default IS NOT NULL THEN expire_in_default::numeric * interval '1s'
        ELSE interval '15 minutes'
        END as expire_in,
      CASE
        WHEN right(keep_until, 1) = 'Z' THEN CAST(keep_until as timestamp with time zone)
        ELSE start_after + CAST(COALESCE(keep_until, (q.retention_minutes * 60)::text, keep_until_default, '14 days') as interval)
        END as keep_until,
      COALESCE(j.retry_limit, q.retry_limit, retry_limit_default, 2) as retry_limit,
      CASE
        WHEN COALESCE(j.retry_backoff, q.retry_backoff, retry_backoff_default, false)
        THEN GREATEST(COALESCE(j.retry_delay, q.retry_delay, retry_delay_default), 1)
        ELSE COALESCE(j.retry_delay, q.retry_delay, retry_delay_default, 0)
        END as retry_delay,
      COALESCE(j.retry_backoff, q.retry_backoff, retry_backoff_default, false) as retry_backoff,
      q.policy
    FROM
      ( SELECT
          COALESCE($1::uuid, gen_random_uuid()) as id,
          $2 as name,
          $3::jsonb as data,
          COALESCE($4::int, 0) as priority,
          CASE
            WHEN right($5, 1) = 'Z' THEN CAST($5 as timestamp with time zone)
            ELSE now() + CAST(COALESCE($5,'0') as interval)
            END as start_after,
          $6 as singleton_key,
          CASE
            WHEN $7::integer IS NOT NULL THEN 'epoch'::timestamp + '1 second'::interval * ($7 * floor((date_part('epoch', now()) + $8) / $7))
            ELSE NULL
            END as singleton_on,
          $9 as dead_letter,
          $10 as expire_in,
          $11 as expire_in_default,
          $12 as keep_until,
          $13 as keep_until_default,
          $14::int as retry_limit,
          $15::int as retry_limit_default,
          $16::int as retry_delay,
          $17::int as retry_delay_default,
          $18::bool as retry_backoff,
          $19::bool as retry_backoff_default
      ) j JOIN pgboss.queue q ON j.name = q.name
    ON CONFLICT DO NOTHING
    RETURNING id
  `

// post-changes.ts, list-generation.ts: after the commit, the generation and the NOTIFY in one statement.
const ADVANCE_GENERATION_SQL = `
  with advanced as (
    insert into list_generations (id, value, changed_at) values (1, 1, clock_timestamp())
    on conflict (id) do update set value = list_generations.value + 1,
      changed_at = greatest(clock_timestamp(), list_generations.changed_at)
    returning 1
  )
  select pg_notify($1, $2) from advanced`

// ---- The caller ----

interface Caller {
  userId: string
  role: string
  /** The RateLimit fields of the answer. */
  budgetHeaders: Record<string, string>
}

const ISSUED_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const decodeJson = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Row

/** An HS256 access token's claims once its signature, algorithm, issuer, audience and expiry hold; null otherwise. */
function verifyJwt(token: string): { sub: string; sid: string } | null {
  const [header, payload, signature] = token.split('.')
  if (header === undefined || payload === undefined || signature === undefined) return null
  const expected = createHmac('sha256', jwtKey).update(`${header}.${payload}`).digest()
  const given = Buffer.from(signature, 'base64url')
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null
  if (decodeJson(header).alg !== 'HS256') return null
  const claims = decodeJson(payload)
  const { sub, sid, exp, iss, aud } = claims
  if (iss !== ISSUER || aud !== AUDIENCE || typeof exp !== 'number' || exp * 1000 <= Date.now()) return null
  if (typeof sub !== 'string' || !ISSUED_ID.test(sub) || typeof sid !== 'string' || !ISSUED_ID.test(sid)) return null
  return { sub, sid }
}

async function authorize(request: IncomingMessage): Promise<Caller> {
  const token = /^bearer[ \t]+([A-Za-z0-9_.-]{1,4096})$/i.exec(request.headers.authorization ?? '')?.[1]
  const claims = token === undefined ? null : verifyJwt(token)
  if (claims === null) throw new Refusal(401, 'UNAUTHENTICATED')
  const { rows } = await pool.query(SESSION_SQL, [claims.sid, claims.sub])
  const session = rows[0] as { role: string; lastUsedAt: Date } | undefined
  if (session === undefined) throw new Refusal(401, 'SESSION_REVOKED')
  if (Date.now() - session.lastUsedAt.getTime() >= LAST_USED_STEP_SECONDS * 1000)
    await pool.query(SESSION_USED_SQL, [claims.sid, LAST_USED_STEP_SECONDS])
  const budget = await pool.query(BUDGET_SQL, [`write-budget:${claims.sub}`, BUDGET_WINDOW_SECONDS * 1000])
  const { count, ttl } = budget.rows[0] as { count: number; ttl: number }
  const seconds = Math.min(BUDGET_WINDOW_SECONDS, Math.ceil(Math.max(0, ttl) / 1000))
  const budgetHeaders = {
    'ratelimit-policy': BUDGET_POLICY,
    ratelimit: `"writes";r=${Math.max(0, BUDGET - count)};t=${seconds}`,
  }
  if (count > BUDGET) throw new Refusal(429, 'RATE_LIMITED')
  return { userId: claims.sub, role: session.role, budgetHeaders }
}

// ---- Transactions and what follows their commit ----

async function inTransaction<T>(statementTimeout: boolean, work: (db: Db) => Promise<T>): Promise<T> {
  const client = await pool.connect()
  try {
    await client.query('BEGIN')
    if (statementTimeout) await client.query(TIMEOUT_SQL, [STATEMENT_TIMEOUT])
    const result = await work(client)
    await client.query('COMMIT')
    return result
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined)
    throw error
  } finally {
    client.release()
  }
}

/** post-changes.ts `changed`: the lists' generation moved on, the other instances told, in one statement. */
async function changed(selector: string) {
  await pool.query(ADVANCE_GENERATION_SQL, ['post_cache', `${SENDER}/${selector}`])
}

/** webhook-events.ts `emit`: the subscribers, and for each the event (once) and a delivery job. */
async function emit(db: Db, type: string, data: unknown) {
  const { rows } = await db.query(SUBSCRIBERS_SQL, [type])
  if (rows.length === 0) return
  const eventId = randomUUID()
  const body = JSON.stringify({ type, timestamp: new Date().toISOString(), data })
  await db.query(INSERT_EVENT_SQL, [eventId, type, body, 'webhook_deliveries'])
  for (const { id: endpointId } of rows as { id: string }[]) {
    const jobId = uuidV5OfUrl(`urn:blog-api:webhook-delivery:${eventId}:${endpointId}`)
    const nulls = Array<null>(11).fill(null)
    await db.query(BOSS_SEND_SQL, [
      jobId,
      'deliver-webhook',
      JSON.stringify({ eventId, endpointId }),
      0,
      null,
      null,
      null,
      0,
      ...nulls,
    ])
  }
}

// ---- Posts ----

interface LoadedPost {
  row: {
    id: string
    authorId: string
    title: string
    body: string
    html: string | null
    excerpt: string
    status: string
    publishedAt: Date | null
    publishJobId: string | null
    commentCount: number
    commentsOpen: boolean
    createdAt: Date
    updatedAt: Date
    slug: string
  }
  author: { id: string; name: string }
  categories: { id: string; name: string; slug: string }[]
  thumbnail: { width: number; key: string; imageWidth: number; height: number; contentType: string }[]
  mediaIds: string[]
}

/** The post as our server reads it in a write (one statement), its relations parsed. */
async function loadPost(db: Db, id: string): Promise<LoadedPost | null> {
  const loaded = (await db.query(LOAD_POST_SQL, [id])).rows[0] as
    (LoadedPost['row'] & { authorName: string; categories: string; thumbnail: string; media: string }) | undefined
  if (loaded === undefined) return null
  const { authorName, categories, thumbnail, media, ...row } = loaded
  return {
    row,
    author: { id: row.authorId, name: authorName },
    categories: JSON.parse(categories) as LoadedPost['categories'],
    thumbnail: JSON.parse(thumbnail) as LoadedPost['thumbnail'],
    mediaIds: JSON.parse(media) as string[],
  }
}

const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/** The post as our server writes it (src/content/posts/post-view.ts toPost), keys in its order. */
function postView({ row, author, categories, thumbnail, mediaIds }: LoadedPost) {
  const sizes = thumbnail
    .map((image) => ({
      width: image.imageWidth,
      height: image.height,
      url: `/images/${image.key}`,
      contentType: image.contentType,
    }))
    .sort((a, b) => a.width - b.width || byCodePoint(a.url, b.url))
  return {
    id: row.id,
    title: row.title,
    body: row.body,
    html: row.html ?? '',
    excerpt: row.excerpt,
    status: row.status,
    publishedAt: row.publishedAt?.toISOString() ?? null,
    author,
    categories: [...categories].sort((a, b) => byCodePoint(a.slug, b.slug)),
    thumbnail: sizes.length > 0 ? { sizes } : null,
    mediaIds: [...mediaIds].sort(byCodePoint),
    commentCount: row.commentCount,
    commentsOpen: row.commentsOpen,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    slug: row.slug,
  }
}

type PostView = ReturnType<typeof postView>

/**
 * The post in the order our server sends it in a write's answer: its response serializer
 * (fast-json-stringify, from the spec's Post) writes the required properties first, in the
 * order `required` lists them, then the others. (postView's order is toPost's, which the ETag and
 * webhook events are made from, as ours.)
 */
const wirePost = (post: PostView) => ({
  id: post.id,
  title: post.title,
  body: post.body,
  excerpt: post.excerpt,
  status: post.status,
  publishedAt: post.publishedAt,
  author: post.author,
  categories: post.categories,
  thumbnail: post.thumbnail,
  commentCount: post.commentCount,
  createdAt: post.createdAt,
  updatedAt: post.updatedAt,
  slug: post.slug,
  html: post.html,
  mediaIds: post.mediaIds,
  commentsOpen: post.commentsOpen,
})

const REVISION_FIELDS = ['title', 'body', 'excerpt', 'slug', 'categories', 'status', 'publishedAt', 'thumbnail']

/** A revision's content (src/content/revisions/revision-rules.ts contentOf). */
function contentOf({ row, categories, thumbnail }: LoadedPost) {
  return {
    title: row.title,
    body: row.body,
    excerpt: row.excerpt,
    slug: row.slug,
    status: row.status,
    publishedAt: row.publishedAt,
    categoryIds: categories.map((category) => category.id).sort(),
    thumbnail: thumbnail.map((image) => `${image.key}:${image.width}`).sort(),
    byteSize: Buffer.byteLength(row.title) + Buffer.byteLength(row.body) + Buffer.byteLength(row.excerpt),
  }
}
type Content = ReturnType<typeof contentOf>

function changedFields(before: Content | null, after: Content): string[] {
  if (before === null) return [...REVISION_FIELDS]
  const differs: Record<string, boolean> = {
    title: before.title !== after.title,
    body: before.body !== after.body,
    excerpt: before.excerpt !== after.excerpt,
    slug: before.slug !== after.slug,
    categories: before.categoryIds.join() !== after.categoryIds.join(),
    status: before.status !== after.status,
    publishedAt: (before.publishedAt?.getTime() ?? null) !== (after.publishedAt?.getTime() ?? null),
    thumbnail: before.thumbnail.join() !== after.thumbnail.join(),
  }
  return REVISION_FIELDS.filter((field) => differs[field])
}

async function insertRevision(
  db: Db,
  postId: string,
  number: number,
  editorId: string | null,
  content: Content,
  changed: string[],
) {
  const id = uuidV7()
  await db.query(INSERT_REVISION_SQL, [
    id,
    postId,
    number,
    new Date(),
    editorId,
    changed,
    content.title,
    content.body,
    content.excerpt,
    content.slug,
    content.status,
    content.publishedAt,
    content.categoryIds,
    content.byteSize,
  ])
}

/** record-revision.ts: a revision when a content field changed, then the pruning. */
async function recordRevision(db: Db, post: LoadedPost, editorId: string, before: LoadedPost | null) {
  if (REVISIONS_MAX === 0) return
  const previous = before === null ? null : contentOf(before)
  const content = contentOf(post)
  const changed = changedFields(previous, content)
  if (changed.length === 0) return
  const newest = (await db.query(NEWEST_REVISION_SQL, [post.row.id, 1, 0])).rows[0] as { number: number } | undefined
  let number = newest?.number ?? null
  if (number === null && previous !== null) {
    await insertRevision(db, post.row.id, 1, null, previous, [...REVISION_FIELDS])
    number = 1
  }
  await insertRevision(db, post.row.id, (number ?? 0) + 1, editorId, content, changed)
  await db.query(PRUNE_REVISIONS_SQL, [post.row.id, REVISIONS_MAX, REVISIONS_MAX_BYTES, post.row.id])
}

const escapeHtml = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;')
/** Our renderer's html for a body of plain paragraphs, which is what the bench sends: no markdown. */
const paragraphsHtml = (body: string) =>
  body
    .split(/\n{2,}/)
    .map((paragraph) => `<p>${escapeHtml(paragraph.trim())}</p>\n`)
    .join('')

const NUMBERED = /^(.+)-([1-9][0-9]{0,8})$/

interface CreatePostInput {
  title: string
  body: string
  status?: 'draft' | 'published'
  categoryIds: string[]
  excerpt?: string
  slug?: string
  commentsOpen?: boolean
}

async function createPost(caller: Caller, input: CreatePostInput) {
  const status = input.status ?? 'draft'
  const slug = input.slug ?? (await slugOfTitle(input.title))
  const html = paragraphsHtml(input.body)
  const now = new Date()
  const post = await inTransaction(true, async (db) => {
    const found = new Set(
      (await db.query(LOCK_CATEGORIES_SQL, [input.categoryIds])).rows.map((row) => (row as { id: string }).id),
    )
    if (!input.categoryIds.every((id) => found.has(id))) throw new Refusal(422, 'CATEGORY_NOT_FOUND')
    const id = uuidV7()
    await db.query(INSERT_POST_SQL, [
      id,
      caller.userId,
      input.title,
      input.body,
      html,
      input.excerpt ?? deriveExcerpt(input.body),
      status,
      status === 'published' ? now : null,
      0,
      input.commentsOpen ?? true,
      now,
      now,
      slug,
    ])
    await db.query(
      insertFilingsSql(input.categoryIds.length),
      input.categoryIds.flatMap((categoryId) => [id, categoryId]),
    )
    // No post_media to clear on a new post, no media in the bench's bodies: no statement (showMedia).
    // settleSlug: the author's lock, then the slug free of their own drafts, then claimed (published) or free of claims.
    await db.query(SLUG_LOCK_SQL, [caller.userId])
    if ((await db.query(OWN_DRAFT_SLUG_SQL, [caller.userId, slug, id])).rows.length > 0)
      throw new Refusal(409, 'POST_SLUG_TAKEN')
    if (status === 'published') {
      const numbered = NUMBERED.exec(slug)
      const [stem, suffix] = numbered ? [numbered[1]!, Number(numbered[2])] : [slug, 1]
      if ((await db.query(TAKE_SLUG_SQL, [slug, id, stem, suffix])).rows.length === 0)
        throw new Refusal(409, 'POST_SLUG_TAKEN')
    } else if ((await db.query(CLAIMED_SLUG_SQL, [slug, id])).rows.length > 0) throw new Refusal(409, 'POST_SLUG_TAKEN')
    await db.query(REINDEX_SQL, [searchText(`${input.title} ${input.body}`), id])
    const loaded = (await loadPost(db, id))!
    await recordRevision(db, loaded, caller.userId, null)
    const view = postView(loaded)
    if (status === 'published') await emit(db, 'post.published', view)
    return view
  })
  if (status === 'published') await changed(`created:${post.id}`)
  return post
}

async function updatePost(caller: Caller, id: string, input: { title?: string; body?: string }) {
  const mayEdit = (owner: { authorId: string } | undefined) => {
    if (owner === undefined) throw new Refusal(404, 'POST_NOT_FOUND')
    if (owner.authorId !== caller.userId && caller.role !== 'admin') throw new Refusal(403, 'FORBIDDEN')
  }
  if (input.body !== undefined) {
    const owner = (await pool.query(OWNER_SQL, [id, 1, 0])).rows[0] as { author_id: string } | undefined
    mayEdit(owner && { authorId: owner.author_id })
  }
  const html = input.body === undefined ? undefined : paragraphsHtml(input.body)
  const updated = await inTransaction(true, async (db) => {
    mayEdit((await db.query(LOCK_EDITED_POST_SQL, [id])).rows[0] as { authorId: string } | undefined)
    const current = (await loadPost(db, id))!
    const body = input.body ?? current.row.body
    const excerpt = input.body !== undefined ? deriveExcerpt(body) : current.row.excerpt
    const { status, publishedAt, publishJobId } = current.row
    // The fields post-writes.ts sets, undefined ones left out, then Prisma's @updatedAt.
    const fields: [string, unknown][] = [
      ['title', input.title],
      ['body', body],
      ['html', html],
      ['excerpt', excerpt],
      ['status', status],
      ['published_at', publishedAt],
      ['publish_job_id', publishJobId],
      ['updated_at', new Date()],
    ]
    const set = fields.filter(([, value]) => value !== undefined)
    await db.query(updatePostSql(set.map(([column]) => column)), [...set.map(([, value]) => value), id])
    // showMedia: a post that shows no media, given a body that shows none, has nothing to clear.
    if (html !== undefined && current.mediaIds.length > 0) await db.query(EMPTY_POST_MEDIA_SQL, [id])
    if (input.title !== undefined || input.body !== undefined)
      await db.query(REINDEX_SQL, [searchText(`${input.title ?? current.row.title} ${body}`), id])
    const post = (await loadPost(db, id))!
    await recordRevision(db, post, caller.userId, current)
    const view = postView(post)
    const published = current.row.status !== 'published' && post.row.status === 'published'
    await emit(db, published ? 'post.published' : 'post.updated', view)
    return { view, listed: current.row.status === 'published' || post.row.status === 'published' }
  })
  await changed(`${updated.listed ? 'post-lists' : 'post'}:${id}`)
  return updated.view
}

// ---- Comments ----

async function createComment(caller: Caller, postId: string, input: { body: string }) {
  const hash = bodyHash(input.body)
  const comment = await inTransaction(false, async (db) => {
    const post = (await db.query(LOCK_COMMENTED_POST_SQL, [postId])).rows[0] as
      { status: string; commentsOpen: boolean } | undefined
    if (post === undefined) throw new Refusal(404, 'POST_NOT_FOUND')
    if (post.status !== 'published') throw new Refusal(409, 'POST_NOT_PUBLISHED')
    if (!post.commentsOpen) throw new Refusal(409, 'COMMENTS_CLOSED')
    if ((await db.query(TWIN_COMMENT_SQL, [postId, caller.userId, hash, 1, 0])).rows.length > 0)
      throw new Refusal(409, 'DUPLICATE_COMMENT')
    const row = (
      await db.query(INSERT_COMMENT_SQL, [
        postId,
        uuidV7(),
        postId,
        caller.userId,
        null,
        input.body,
        'published',
        true,
        hash,
        postId,
        true,
      ])
    ).rows[0] as Row & { authorName: string; authorId: string; createdAt: Date; updatedAt: Date }
    const view = {
      id: row.id,
      postId: row.postId,
      parentId: row.parentId,
      author: { id: row.authorId, name: row.authorName },
      body: row.body,
      status: row.status,
      createdAt: row.createdAt.toISOString(),
      updatedAt: row.updatedAt.toISOString(),
    }
    await emit(db, 'comment.created', view)
    return view
  })
  await changed(`post:${postId}`)
  // In the order our server answers it: the required properties first (see wirePost).
  const { status, ...required } = comment
  return { ...required, status }
}

// ---- HTTP ----

function send(response: ServerResponse, status: number, data: unknown, headers: Record<string, string> = {}) {
  const json = JSON.stringify(data)
  const requestId = randomUUID()
  const bytes = Buffer.from(
    status < 400
      ? `{"data":${json},"error":null,"meta":{"requestId":"${requestId}"}}`
      : `{"data":null,"error":${json},"meta":{"requestId":"${requestId}"}}`,
  )
  response.writeHead(status, {
    ...STATIC_HEADERS,
    ...headers,
    'x-request-id': requestId,
    'content-type': 'application/json; charset=utf-8',
    'content-length': bytes.length,
  })
  response.end(bytes)
}

/** A strong ETag over the post's JSON (post-view.ts etagOfJson). */
const etagOf = (post: unknown) =>
  `"${createHash('sha256').update(JSON.stringify(post)).digest('base64url').slice(0, 32)}"`

async function readJson(request: IncomingMessage): Promise<Row> {
  const chunks: Buffer[] = []
  for await (const chunk of request) chunks.push(chunk as Buffer)
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Row
}

async function answer(request: IncomingMessage, response: ServerResponse) {
  const path = request.url ?? '/'
  if (request.method === 'GET' && path === '/poke') {
    await pool.query('select 1')
    return send(response, 200, null)
  }
  if (request.method === 'GET' && path === '/trace' && traced !== null) {
    const statements = traced
    traced = []
    return send(response, 200, statements)
  }
  const commentOn = /^\/posts\/([0-9a-f-]{36})\/comments$/.exec(path)?.[1]
  const postId = /^\/posts\/([0-9a-f-]{36})$/.exec(path)?.[1]
  const route =
    request.method === 'POST' && commentOn !== undefined
      ? 'createComment'
      : request.method === 'POST' && path === '/posts'
        ? 'createPost'
        : request.method === 'PATCH' && postId !== undefined
          ? 'updatePost'
          : null
  if (route === null) return send(response, 404, { code: 'NOT_FOUND' })
  const caller = await authorize(request)
  const input = await readJson(request)
  if (route === 'createComment') {
    const comment = await createComment(caller, commentOn!, input as { body: string })
    return send(response, 201, comment, caller.budgetHeaders)
  }
  const post =
    route === 'createPost'
      ? await createPost(caller, input as unknown as CreatePostInput)
      : await updatePost(caller, postId!, input as { title?: string; body?: string })
  return send(response, route === 'createPost' ? 201 : 200, wirePost(post), {
    ...caller.budgetHeaders,
    etag: etagOf(post),
  })
}

const server = createServer((request, response) => {
  answer(request, response).catch((error: unknown) => {
    if (response.headersSent) return response.destroy()
    if (error instanceof Refusal) return send(response, error.status, { code: error.code })
    send(response, 500, { code: 'PEER_ERROR', message: String(error) })
  })
})

server.listen(0, '127.0.0.1', () => {
  console.log(JSON.stringify({ port: (server.address() as { port: number }).port }))
})
process.on('SIGTERM', () => {
  server.close()
  void pool.end()
  server.closeAllConnections()
})
