// Writes against a bare peer (issue 37, point 3): createComment, createPost and updatePost on our
// server against a bare node:http + `pg` server (scripts/bench/write-peer.ts, a process of its own)
// that runs, for each, the statements our server sends, in the same transaction, on a copy of the
// same database. PostgreSQL only: the peer speaks to a PostgreSQL server.
//
// Our side is the server as deployed, with everything on a write's path: authentication (the JWT,
// then the live session read), the write budget's upsert (lifted so that the bench's writers are
// never refused, counted all the same: BENCH_WRITE_BUDGET), request validation, rendering the
// body, the revision with its pruning (POST_REVISIONS_MAX's default, 50), the webhook subscribers'
// lookup, the caches forgotten and the lists' generation moved on. Comments run as every bench
// server that comments does (BENCH_COMMENTS: moderation off, no flood interval), so neither side
// runs the flood check's two statements or first-time's lookup.
//
// Equal work:
// - 20 writers, one a connection (autocannon's setupClient), each an account of its own with
//   posts of its own: writer k comments on writer k+1's posts and edits its own, in turn, so no
//   two requests in flight lock the same post, the same budget row or the same author's slug lock
//   (a connection sends one request at a time). Bodies are unique (a comment sent twice is 409
//   DUPLICATE_COMMENT), every edit changes the body (and so the excerpt: a revision each time),
//   and every post has a history of 50 revisions before the figures (made in SQL), so that every
//   edit prunes one, on both sides alike, however many each side makes. No If-Match: it is optional.
// - Both sides get the same sequence of requests and the same warm-up before each run; the runs
//   go A, B, B, A (each side's figure the mean of its two, so that a drift of the machine, which
//   others share, falls on both), and which side is A alternates from one write to the next.
// - The peer sends our statements, text for text, in the same order and transactions:
//   test/scripts/write-peer.test.ts compares them one write at a time (a write whose statements
//   change fails there until the peer follows).
// - Before the figures, one request of each write to each side: the same status and the same
//   answer (ids and times aside), byte for byte.
// - PostgreSQL's per-table counts (rows inserted, updated, deleted; scans) on each side's database
//   over warm-up and figure, per write done (the session read and the budget's upsert per request
//   sent): they must agree within 5 %. pg-boss's schema is not counted (its workers poll it on our
//   side whatever the figure), nor the scans of the lists' generation, which follow contention.
// - Printed beside each figure: the CPU time per write of each side's process and of the
//   PostgreSQL backends serving its database (/proc): what each side costs, whatever else runs
//   on the machine.
//
// Then the same three writes with one webhook endpoint subscribed to their events
// (comment.created, post.published, post.updated) on both sides: each write's transaction also
// writes the event (with its NOTIFY) and a pg-boss delivery job, on both; our server, a real one,
// also delivers each event (to a receiver in this process answering 204), and the peer does not:
// printed with its ratio and no target, since our side does more.
import { once } from 'node:events'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { readFileSync } from 'node:fs'
import autocannon from 'autocannon'
import pg from 'pg'
import { scratchPostgres, type ScratchDatabase } from './database.ts'
import { formatFigure, measure, type Figure } from './measure.ts'
import { BENCH_ADMIN, BENCH_COMMENTS, BENCH_WRITE_BUDGET, seed } from './seed.ts'
import { startPeerProcess, type Peer } from './peers.ts'
import { startServer, type RunningServer } from './server.ts'

export const WRITES_TARGET =
  'createComment/createPost/updatePost >= 0.5 x bare node:http + pg (same statements, one transaction)'
export const WRITES_RATIO = 0.5

export type WriteKind = 'createComment' | 'createPost' | 'updatePost'
const KINDS: WriteKind[] = ['createComment', 'createPost', 'updatePost']

/** The server's pool (DATABASE_POOL_MAX's default), and the peer's. */
const POOL_MAX = 10
const POSTS_PER_WRITER = 3
/** The revisions each writer's post has before the figures: POST_REVISIONS_MAX's default, so every edit prunes one. */
const REVISIONS_BEFORE = 50
/** Per-table counts per write must agree within this fraction on both sides. */
const TABLE_TOLERANCE = 0.05
/** And within this many rows or scans over a whole figure: our server's jobs, the sessions' once-a-minute touch. */
const TABLE_SLACK = 60

/** About 2 KB of prose in paragraphs, as the seeded posts (scripts/bench/seed.ts). */
const PROSE = Array.from({ length: 3 }, () =>
  'A paragraph of a blog post, long enough to look like prose and to weigh what prose weighs. '.repeat(7).trim(),
).join('\n\n')
const COMMENT_TEXT =
  'Thanks for writing this up: the second paragraph answers what I was going to ask, and the rest reads well.'

interface Writer {
  email: string
  token: string
  /** Its own posts, published. */
  posts: string[]
  /** One more post of its own that nobody comments on: the answers checked before updatePost's figures are alike. */
  spare: string
}

interface Options {
  duration: number
  warmSeconds: number
  connections: number
}

export interface TableCounts {
  inserted: number
  updated: number
  deleted: number
  reads: number
}

export interface WriteFigure {
  kind: WriteKind
  /** With one webhook endpoint subscribed (no target: our server also delivers). */
  webhook: boolean
  peer: Figure
  ours: Figure
  ratio: number
  /** The answers to one request of the write on each side, where they differ (ids and times aside). */
  differences: string[]
  bytes: { ours: number; peer: number }
  /**
   * CPU time over the figure per write answered, of the process (all threads) and of the
   * PostgreSQL backends serving its database (those connected both before and after): our
   * server's side, the peer's. /proc counts in 10 ms.
   */
  cpuMsPerWrite: { ours: { process: number; database: number }; peer: { process: number; database: number } }
  /** Per write done (sessions, rate_limit_counters: per request sent), by table (public schema), each side; where they disagree. */
  tables: { ours: Record<string, TableCounts>; peer: Record<string, TableCounts>; problems: string[] }
  /** Events our server delivered to the receiver during the side's warm-up and figure (webhook round). */
  delivered?: number
  /** The runs, in the order they ran (ABBA for the target figures, AB for the webhook round). */
  runs: Figure[]
}

export interface WriteFigures {
  figures: WriteFigure[]
  webhookFigures: WriteFigure[]
}

// ---- the requests ----

/** What a side's sequence has sent so far: per writer, the requests built. */
type Progress = number[]

function writeRequest(kind: WriteKind, writers: Writer[], categoryIds: string[], k: number, n: number, tag: string) {
  const writer = writers[k]!
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${writer.token}` }
  if (kind === 'createComment') {
    const next = writers[(k + 1) % writers.length]!
    return {
      method: 'POST' as const,
      path: `/posts/${next.posts[n % next.posts.length]}/comments`,
      headers,
      body: JSON.stringify({ body: `${tag} writer ${k}, comment ${n}. ${COMMENT_TEXT}` }),
    }
  }
  if (kind === 'createPost') {
    const c = (k + n) % categoryIds.length
    return {
      method: 'POST' as const,
      path: '/posts',
      headers,
      body: JSON.stringify({
        title: `Write bench ${tag} ${k}-${n}`,
        body: `${tag} post ${n} of writer ${k}.\n\n${PROSE}`,
        status: 'published',
        categoryIds: [categoryIds[c]!, categoryIds[(c + 1) % categoryIds.length]!],
      }),
    }
  }
  return {
    method: 'PATCH' as const,
    path: `/posts/${writer.posts[n % writer.posts.length]}`,
    headers,
    body: JSON.stringify({ body: `${tag} edit ${n} by writer ${k}.\n\n${PROSE}` }),
  }
}

/**
 * autocannon options that give connection k to writer k, each sending its own requests in turn;
 * `progress` carries on from the warm-up to the figure, so no body repeats.
 */
function sequence(kind: WriteKind, writers: Writer[], categoryIds: string[], progress: Progress, tag: string) {
  let clients = 0
  return {
    requests: [{ method: 'GET', path: '/ping' }] satisfies autocannon.Request[],
    setupClient: (client: autocannon.Client) => {
      const k = clients++ % writers.length
      client.setRequests([
        {
          setupRequest: (request: autocannon.Request) => ({
            ...request,
            ...writeRequest(kind, writers, categoryIds, k, progress[k]!++, tag),
          }),
        },
      ])
    },
  }
}

// ---- PostgreSQL's counts ----

interface Counter {
  read(): Promise<Record<string, TableCounts>>
  /** The CPU time so far of each backend connected to the database (PostgreSQL on this machine), by pid. */
  backendsCpu(): Promise<Map<number, number>>
  /** Waits until every connection of `application` has published its counts of work that ended at `ended`. */
  settle(poke: () => Promise<unknown>, application: string, ended: number): Promise<void>
  close(): Promise<void>
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)))

/** PostgreSQL 15 keeps an idle backend's counts up to 10 s (scripts/bench/sql-count.ts says more). */
const IDLE_PUBLICATION_MS = 10_500

async function openCounter(databaseUrl: string): Promise<Counter> {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: 'bench-write-counter' })
  await client.connect()
  return {
    async read() {
      await client.query('select pg_stat_clear_snapshot()')
      const { rows } = await client.query<{ table: string } & Record<keyof TableCounts, string>>(
        `select relname as table, n_tup_ins as inserted, n_tup_upd as updated, n_tup_del as deleted,
           coalesce(seq_scan, 0) + coalesce(idx_scan, 0) as reads
         from pg_stat_user_tables where schemaname = 'public'`,
      )
      return Object.fromEntries(
        rows.map((row) => [
          row.table,
          {
            inserted: Number(row.inserted),
            updated: Number(row.updated),
            deleted: Number(row.deleted),
            reads: Number(row.reads),
          },
        ]),
      )
    },
    async backendsCpu() {
      const { rows } = await client.query<{ pid: number }>(
        'select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
      )
      const cpu = new Map<number, number>()
      for (const { pid } of rows) {
        try {
          cpu.set(pid, cpuMs(pid))
        } catch {
          // gone meanwhile, or not on this machine
        }
      }
      return cpu
    },
    async settle(poke, application, ended) {
      // A transaction a second after a backend's last publication publishes what it holds.
      await sleep(ended + 1_100 - Date.now())
      const poked = Date.now()
      while (Date.now() < poked + IDLE_PUBLICATION_MS) {
        await Promise.all(Array.from({ length: 2 * POOL_MAX }, poke))
        const { rows } = await client.query<{ waiting: number }>(
          `select count(*)::int as waiting from pg_stat_activity
           where datname = current_database() and application_name = $1
             and state_change >= now() - make_interval(secs => $2) and state_change < $3`,
          [application, IDLE_PUBLICATION_MS / 1000, new Date(poked)],
        )
        if (rows[0]!.waiting === 0) return
        await sleep(200)
      }
    },
    close: () => client.end(),
  }
}

const COUNTED = ['inserted', 'updated', 'deleted', 'reads'] as const

/**
 * What a write leaves in the table it exists for: one comment, one post, one revision (every edit
 * changes the body). The writes done, whatever the requests sent: a request still in flight when a
 * run stops may be dropped with its connection once authenticated and counted, before its body is
 * read (our server and the peer alike), so it costs its session read and budget upsert but writes nothing.
 */
const WRITTEN: Record<WriteKind, string> = {
  createComment: 'comments',
  createPost: 'posts',
  updatePost: 'post_revisions',
}
/** The statements every request sent pays before its body is read: counted per request sent. */
const PER_REQUEST_TABLES = new Set(['sessions', 'rate_limit_counters'])

/** What a run changed in each table: `after` less `before`. */
function deltaOf(before: Record<string, TableCounts>, after: Record<string, TableCounts>) {
  const zero = { inserted: 0, updated: 0, deleted: 0, reads: 0 }
  return Object.fromEntries(
    Object.entries(after).map(([table, counts]) => [
      table,
      Object.fromEntries(
        COUNTED.map((counted) => [counted, counts[counted] - (before[table] ?? zero)[counted]]),
      ) as unknown as TableCounts,
    ]),
  )
}

/** The counts of runs together. */
function sumOf(deltas: Record<string, TableCounts>[]) {
  const total: Record<string, TableCounts> = {}
  for (const delta of deltas)
    for (const [table, counts] of Object.entries(delta)) {
      const sum = (total[table] ??= { inserted: 0, updated: 0, deleted: 0, reads: 0 })
      for (const counted of COUNTED) sum[counted] += counts[counted]
    }
  return total
}

/** The counts per write done (the requests' own per request sent); the writes done. */
function perWrite(kind: WriteKind, delta: Record<string, TableCounts>, sent: number) {
  const writes = delta[WRITTEN[kind]]?.inserted ?? 0
  const result: Record<string, TableCounts> = {}
  for (const [table, counts] of Object.entries(delta)) {
    const per = PER_REQUEST_TABLES.has(table) ? sent : writes
    const perCounts = Object.fromEntries(COUNTED.map((counted) => [counted, counts[counted] / per]))
    if (COUNTED.some((counted) => perCounts[counted] !== 0)) result[table] = perCounts as unknown as TableCounts
  }
  return { tables: result, writes }
}

/**
 * Scans that follow contention rather than work: every write's upsert of the lists' generation
 * meets the one row all writes update, and an upsert that waited for it checks the conflict again
 * (another scan of its index) once the other commits: how often depends on how many run at once.
 */
const CONTENDED_READS = new Set(['list_generations'])

function tableProblems(
  ours: Record<string, TableCounts>,
  peer: Record<string, TableCounts>,
  writes: { ours: number; peer: number },
) {
  const problems: string[] = []
  const zero = { inserted: 0, updated: 0, deleted: 0, reads: 0 }
  for (const table of new Set([...Object.keys(ours), ...Object.keys(peer)])) {
    for (const counted of COUNTED) {
      if (counted === 'reads' && CONTENDED_READS.has(table)) continue
      const [o, p] = [(ours[table] ?? zero)[counted], (peer[table] ?? zero)[counted]]
      const slack = Math.max(TABLE_TOLERANCE * Math.max(o, p), TABLE_SLACK / Math.min(writes.ours, writes.peer))
      if (Math.abs(o - p) > slack)
        problems.push(`${table} ${counted}: ${o.toFixed(2)} a write on ours, ${p.toFixed(2)} on the peer`)
    }
  }
  return problems
}

const formatCounts = (counts: Record<string, TableCounts>) =>
  Object.entries(counts)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(
      ([table, c]) =>
        `${table} ${COUNTED.filter((kind) => Math.abs(c[kind]) >= 0.005)
          .map((kind) => `${kind[0]}${c[kind].toFixed(2)}`)
          .join(' ')}`,
    )
    .join(', ')

/** CPU time of a process so far (user and system, all threads), in ms: /proc counts in 1/100 s. */
function cpuMs(pid: number) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return (Number(fields[11]) + Number(fields[12])) * 10
}

// ---- answers ----

interface Answer {
  status: number
  headers: Record<string, string>
  body: string
}

async function ask(baseUrl: string, request: ReturnType<typeof writeRequest>): Promise<Answer> {
  const response = await fetch(`${baseUrl}${request.path}`, {
    method: request.method,
    headers: request.headers,
    body: request.body,
  })
  return {
    status: response.status,
    headers: Object.fromEntries(response.headers),
    body: await response.text(),
  }
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g
const TIME = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g
const comparable = (body: string) => body.replace(UUID, '<id>').replace(TIME, '<time>')
/** Headers whose values differ from answer to answer, or are the transport's own. */
const VARYING = new Set(['date', 'connection', 'keep-alive', 'x-request-id', 'etag', 'ratelimit'])

function differencesOf(kind: WriteKind, ours: Answer, peer: Answer): string[] {
  const differences: string[] = []
  if (ours.status !== peer.status) differences.push(`${kind}: ${ours.status} from ours, ${peer.status} from the peer`)
  const [a, b] = [comparable(ours.body), comparable(peer.body)]
  if (a !== b) {
    let at = 0
    while (a[at] === b[at]) at++
    const around = (text: string) => JSON.stringify(text.slice(Math.max(0, at - 40), at + 60))
    differences.push(`${kind}: the answers differ at character ${at}: ours ${around(a)}, the peer ${around(b)}`)
  }
  for (const name of new Set([...Object.keys(ours.headers), ...Object.keys(peer.headers)])) {
    if (VARYING.has(name)) {
      if ((ours.headers[name] === undefined) !== (peer.headers[name] === undefined))
        differences.push(`${kind}: header ${name} on one side only`)
    } else if (ours.headers[name] !== peer.headers[name])
      differences.push(`${kind}: header ${name}: ${ours.headers[name]} from ours, ${peer.headers[name]} from the peer`)
  }
  return differences
}

// ---- the peer, the receiver ----

export type WritePeer = Peer

export const startWritePeer = (env: Record<string, string>): Promise<WritePeer> =>
  startPeerProcess('scripts/bench/write-peer.ts', env)

/** Answers every event 204 and counts them. */
async function startReceiver() {
  let received = 0
  const server = createServer((request, response) => {
    request.resume()
    request.on('end', () => {
      received++
      response.writeHead(204).end()
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/bench-writes-hook`,
    received: () => received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

// ---- set-up ----

async function call(baseUrl: string, method: string, path: string, body: unknown, token?: string) {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  })
  const json = (await response.json()) as { data: Record<string, unknown> | null; error: unknown }
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json.error)}`)
  return { data: json.data!, headers: Object.fromEntries(response.headers) }
}

const SERVER_ENV = {
  ...BENCH_ADMIN,
  ...BENCH_WRITE_BUDGET,
  ...BENCH_COMMENTS,
  REGISTER_LIMIT_PER_ADDRESS: '1000000',
  LOGIN_LIMIT_PER_ACCOUNT: '100000',
  LOGIN_LIMIT_PER_ACCOUNT_ADDRESS: '100000',
  LOGIN_LIMIT_PER_ADDRESS: '1000000',
  DATABASE_POOL_MAX: String(POOL_MAX),
  // The webhook round's receiver is on loopback.
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
}

/** Headers our server sends on every answer alike: the peer sends them too (its answers weigh the same). */
const PER_ANSWER = new Set([
  'date',
  'connection',
  'keep-alive',
  'content-length',
  'transfer-encoding',
  'content-type',
  'x-request-id',
  'etag',
  'ratelimit',
  'ratelimit-policy',
])

interface Stage {
  server: RunningServer
  peer: WritePeer
  writers: Writer[]
  categoryIds: string[]
  endpointId: string
  peerUrl: string
}

async function prepare(database: ScratchDatabase, receiverUrl: string): Promise<Stage> {
  const env = { ...database.env, ...SERVER_ENV }
  let server = await startServer(env)
  try {
    // Categories, an author and 60 posts of about 2 KB, as every bench seeds.
    await seed(server.url, 60)
    const categoryIds = (
      (await (await fetch(`${server.url}/categories`)).json()) as { data: { id: string }[] }
    ).data.map((category) => category.id)
    const writers: Writer[] = []
    let staticHeaders: Record<string, string> = {}
    for (let k = 0; k < 20; k++) {
      const email = `bench-writer-${k}-${Date.now()}@example.com`
      const { data: registered } = await call(server.url, 'POST', '/register', {
        email,
        password: 'bench-writer-password',
        name: `Bench Writer ${k}`,
      })
      const writer: Writer = { email, token: registered.accessToken as string, posts: [], spare: '' }
      for (let p = 0; p <= POSTS_PER_WRITER; p++) {
        const created = await call(
          server.url,
          'POST',
          '/posts',
          {
            title: `Writer ${k} post ${p}`,
            body: PROSE,
            status: 'published',
            categoryIds: [categoryIds[(k + p) % categoryIds.length]!],
          },
          writer.token,
        )
        if (p === POSTS_PER_WRITER) writer.spare = created.data.id as string
        else writer.posts.push(created.data.id as string)
        staticHeaders = Object.fromEntries(Object.entries(created.headers).filter(([name]) => !PER_ANSWER.has(name)))
      }
      writers.push(writer)
    }
    const { data: admin } = await call(server.url, 'POST', '/login', {
      email: BENCH_ADMIN.ADMIN_EMAIL,
      password: BENCH_ADMIN.ADMIN_PASSWORD,
    })
    const { data: endpoint } = await call(
      server.url,
      'POST',
      '/webhooks',
      {
        url: receiverUrl,
        events: ['comment.created', 'post.published', 'post.updated'],
        description: 'npm run bench -- writes',
      },
      admin.accessToken as string,
    )
    // Paused until the webhook round: the first round's writes find no subscriber.
    await call(
      server.url,
      'PATCH',
      `/webhooks/${endpoint.id as string}`,
      { active: false },
      admin.accessToken as string,
    )
    await server.stop()
    // A history for every writer's post: revision 1 (its creation) copied as 2..50.
    const sql = new pg.Client({ connectionString: database.env.DATABASE_URL })
    await sql.connect()
    await sql.query(
      `insert into post_revisions (id, post_id, number, created_at, editor_id, changed, title, body, excerpt, slug,
         status, published_at, category_ids, byte_size)
       select gen_random_uuid(), r.post_id, r.number + g, r.created_at, r.editor_id, r.changed, r.title, r.body,
         r.excerpt, r.slug, r.status, r.published_at, r.category_ids, r.byte_size
       from post_revisions r cross join generate_series(1, $2::int - 1) g
       where r.post_id = any($1::uuid[]) and r.number = 1`,
      [writers.flatMap((writer) => [...writer.posts, writer.spare]), REVISIONS_BEFORE],
    )
    await sql.query('analyze')
    await sql.end()
    // The peer's copy, made while nothing is connected to the original.
    const peerUrl = await database.copy!()
    server = await startServer(env)
    const peer = await startWritePeer({
      PEER_DATABASE_URL: peerUrl,
      PEER_POOL_MAX: String(POOL_MAX),
      PEER_JWT_SECRET: database.env.JWT_SECRET!,
      PEER_WRITE_BUDGET: BENCH_WRITE_BUDGET.WRITE_BUDGET,
      PEER_WRITE_BUDGET_WINDOW_SECONDS: BENCH_WRITE_BUDGET.WRITE_BUDGET_WINDOW_SECONDS,
      PEER_HEADERS: JSON.stringify(staticHeaders),
    })
    return { server, peer, writers, categoryIds, endpointId: endpoint.id as string, peerUrl }
  } catch (error) {
    await server.stop()
    throw error
  }
}

// ---- the figures ----

/** A side's runs as one figure: the mean of their req/s, the worse of their p50 and p99, every failure. */
function meanOf(runs: Figure[], name: string): Figure {
  const sum = (pick: (run: Figure) => number) => runs.reduce((total, run) => total + pick(run), 0)
  return {
    name,
    requestsPerSecond: Math.round(sum((run) => run.requestsPerSecond) / runs.length),
    p50Ms: Math.max(...runs.map((run) => run.p50Ms)),
    p99Ms: Math.max(...runs.map((run) => run.p99Ms)),
    non2xx: sum((run) => run.non2xx),
    errors: sum((run) => run.errors),
    requests: sum((run) => run.requests ?? 0),
    sent: sum((run) => run.sent ?? 0),
  }
}

async function measureWrite(
  stage: Stage,
  counters: { ours: Counter; peer: Counter },
  kind: WriteKind,
  peerFirst: boolean,
  options: Options & { webhook: boolean; delivered: () => number },
): Promise<WriteFigure> {
  const { server, peer, writers, categoryIds } = stage
  const round = options.webhook ? 'hooked' : 'plain'
  // One request of the write to each side, alike: the same answer.
  const request = writeRequest(kind, writers, categoryIds, 0, 0, `check-${round}`)
  // An edit of a post the comments' figure left alone: both sides' posts are alike.
  const check = kind === 'updatePost' ? { ...request, path: `/posts/${writers[0]!.spare}` } : request
  const [oursAnswer, peerAnswer] = [await ask(server.url, check), await ask(peer.url, check)]
  const differences = differencesOf(kind, oursAnswer, peerAnswer)

  // Each side's requests go on from one of its runs to the next: no body, title or slug repeats.
  const progress = { ours: writers.map(() => 0), peer: writers.map(() => 0) }
  const run = async (side: 'ours' | 'peer') => {
    const url = side === 'ours' ? server.url : peer.url
    const counter = counters[side]
    const label = `${kind}${options.webhook ? ', webhook' : ''}, ${side === 'ours' ? 'ours' : 'bare node:http + pg'}`
    const before = await counter.read()
    const deliveredBefore = options.delivered()
    const common = { url, connections: options.connections }
    const warm = await measure(`${label} (warm-up)`, {
      ...common,
      ...sequence(kind, writers, categoryIds, progress[side], round),
      duration: options.warmSeconds,
    })
    const pid = side === 'ours' ? server.child.pid! : peer.pid
    const [cpuBefore, backendsBefore] = [cpuMs(pid), await counter.backendsCpu()]
    const figure = await measure(label, {
      ...common,
      ...sequence(kind, writers, categoryIds, progress[side], round),
      duration: options.duration,
    })
    const ended = Date.now()
    const [cpuAfter, backendsAfter] = [cpuMs(pid), await counter.backendsCpu()]
    let databaseCpu = 0
    for (const [backend, after] of backendsAfter) databaseCpu += after - (backendsBefore.get(backend) ?? after)
    if (side === 'ours')
      await counter.settle(() => fetch(`${url}/health`).then((r) => r.arrayBuffer()), 'blog-api', ended)
    else await counter.settle(() => fetch(`${url}/poke`).then((r) => r.arrayBuffer()), 'bench-write-peer', ended)
    return {
      side,
      figure: { ...figure, non2xx: figure.non2xx + warm.non2xx, errors: figure.errors + warm.errors },
      sent: (warm.sent ?? 0) + (figure.sent ?? 0),
      delta: deltaOf(before, await counter.read()),
      cpu: { process: cpuAfter - cpuBefore, database: databaseCpu, answered: figure.requests ?? 0 },
      delivered: options.delivered() - deliveredBefore,
    }
  }
  // ABBA for the target figures (each side's figure the mean of its two runs: a drift of the
  // machine, which others share, falls on both), AB for the webhook round.
  const [a, b]: ['ours' | 'peer', 'ours' | 'peer'] = peerFirst ? ['peer', 'ours'] : ['ours', 'peer']
  const runs: Awaited<ReturnType<typeof run>>[] = []
  for (const side of options.webhook ? [a, b] : [a, b, b, a]) runs.push(await run(side))
  const sideOf = (side: 'ours' | 'peer') => {
    const mine = runs.filter((one) => one.side === side)
    const answered = Math.max(
      1,
      mine.reduce((sum, one) => sum + one.cpu.answered, 0),
    )
    const perWriteMs = (ms: number) => Math.round((ms / answered) * 100) / 100
    return {
      figure: meanOf(
        mine.map((one) => one.figure),
        mine[0]!.figure.name,
      ),
      ...perWrite(
        kind,
        sumOf(mine.map((one) => one.delta)),
        mine.reduce((sum, one) => sum + one.sent, 0),
      ),
      cpuMsPerWrite: {
        process: perWriteMs(mine.reduce((sum, one) => sum + one.cpu.process, 0)),
        database: perWriteMs(mine.reduce((sum, one) => sum + one.cpu.database, 0)),
      },
      delivered: mine.reduce((sum, one) => sum + one.delivered, 0),
    }
  }
  const [oursRun, peerRun] = [sideOf('ours'), sideOf('peer')]
  const ratio = Math.round((oursRun.figure.requestsPerSecond / peerRun.figure.requestsPerSecond) * 100) / 100
  const problems = options.webhook
    ? []
    : tableProblems(oursRun.tables, peerRun.tables, { ours: oursRun.writes, peer: peerRun.writes })
  return {
    kind,
    webhook: options.webhook,
    peer: peerRun.figure,
    ours: { ...oursRun.figure, ratio, ratioTo: peerRun.figure.name },
    ratio,
    differences,
    bytes: { ours: Buffer.byteLength(oursAnswer.body), peer: Buffer.byteLength(peerAnswer.body) },
    cpuMsPerWrite: { ours: oursRun.cpuMsPerWrite, peer: peerRun.cpuMsPerWrite },
    tables: { ours: oursRun.tables, peer: peerRun.tables, problems },
    runs: runs.map((one) => one.figure),
    ...(options.webhook ? { delivered: oursRun.delivered } : {}),
  }
}

/**
 * The phase: a scratch database on the PostgreSQL server `databaseUrl` names (and the peer's copy
 * of it), dropped at the end; our server and the peer side by side.
 */
export async function measureWrites(databaseUrl: string, options: Options): Promise<WriteFigures> {
  const database = await scratchPostgres(databaseUrl)
  const receiver = await startReceiver()
  let stage: Stage | undefined
  const counters: Counter[] = []
  try {
    stage = await prepare(database, receiver.url)
    const both = { ours: await openCounter(database.env.DATABASE_URL!), peer: await openCounter(stage.peerUrl) }
    counters.push(both.ours, both.peer)
    const figures: WriteFigure[] = []
    for (const [index, kind] of KINDS.entries())
      figures.push(
        await measureWrite(stage, both, kind, index % 2 === 0, {
          ...options,
          webhook: false,
          delivered: receiver.received,
        }),
      )
    // The endpoint subscribed on both sides: on ours through the API, on the peer's copy in SQL.
    const { data: admin } = await call(stage.server.url, 'POST', '/login', {
      email: BENCH_ADMIN.ADMIN_EMAIL,
      password: BENCH_ADMIN.ADMIN_PASSWORD,
    })
    await call(
      stage.server.url,
      'PATCH',
      `/webhooks/${stage.endpointId}`,
      { active: true },
      admin.accessToken as string,
    )
    const peerSql = new pg.Client({ connectionString: stage.peerUrl })
    await peerSql.connect()
    await peerSql.query('update webhook_endpoints set active = true where id = $1::uuid', [stage.endpointId])
    await peerSql.end()
    const webhookFigures: WriteFigure[] = []
    for (const [index, kind] of KINDS.entries())
      webhookFigures.push(
        await measureWrite(stage, both, kind, index % 2 === 1, {
          ...options,
          webhook: true,
          delivered: receiver.received,
        }),
      )
    return { figures, webhookFigures }
  } finally {
    await Promise.all(counters.map((counter) => counter.close()))
    await stage?.peer.stop()
    await stage?.server.stop()
    await receiver.close()
    await database.drop()
  }
}

/** Met: every target figure at the ratio, every request 2xx on both sides, the same answers and table counts. */
export const writesMet = (writes: WriteFigures) =>
  writes.figures.every(
    (figure) =>
      figure.ratio >= WRITES_RATIO &&
      figure.differences.length === 0 &&
      figure.tables.problems.length === 0 &&
      [figure.ours, figure.peer].every((run) => run.non2xx + run.errors === 0),
  )

/** The figures, printed. */
export function describeWrites(writes: WriteFigures): string {
  const lines: string[] = []
  const cpu = ({ process, database }: { process: number; database: number }) =>
    `${process.toFixed(2)} + ${database.toFixed(2)}`
  const describe = (figure: WriteFigure) => {
    lines.push(formatFigure(figure.peer), formatFigure(figure.ours))
    lines.push(
      `  runs in order: ${figure.runs.map((run) => `${run.name.endsWith(', ours') ? 'ours' : 'peer'} ${run.requestsPerSecond}`).join(', ')} req/s`,
    )
    lines.push(
      `  answers: ${figure.bytes.ours} bytes from ours, ${figure.bytes.peer} from the peer${figure.differences.length === 0 ? ', alike' : ''}; CPU ms per write (process + PostgreSQL): ours ${cpu(figure.cpuMsPerWrite.ours)}, the peer ${cpu(figure.cpuMsPerWrite.peer)}`,
    )
    for (const difference of figure.differences) lines.push(`  DIFFERENT ${difference}`)
    lines.push(`  ours: ${formatCounts(figure.tables.ours)}`)
    lines.push(`  peer: ${formatCounts(figure.tables.peer)}`)
    for (const problem of figure.tables.problems) lines.push(`  UNEQUAL ${problem}`)
    if (figure.delivered !== undefined) lines.push(`  events our server delivered meanwhile: ${figure.delivered}`)
  }
  lines.push(
    'writes against bare node:http + pg (same statements, one transaction; i/u/d/r: rows inserted, updated, deleted, scans, per write done; sessions and rate_limit_counters per request sent):',
  )
  writes.figures.forEach(describe)
  lines.push('with one webhook endpoint subscribed (both write the event and its job; ours also delivers; no target):')
  writes.webhookFigures.forEach(describe)
  lines.push(
    `ours / peer: ${writes.figures.map((figure) => `${figure.kind} ${figure.ratio.toFixed(2)}×`).join(', ')}; with a webhook: ${writes.webhookFigures.map((figure) => `${figure.kind} ${figure.ratio.toFixed(2)}×`).join(', ')}`,
  )
  return lines.join('\n')
}

/** `npm run bench -- writes`: this phase alone (PostgreSQL: DATABASE_URL), in a few minutes. */
export async function benchWritesOnly(options: Options): Promise<WriteFigures | null> {
  if (!process.env.DATABASE_URL) {
    console.log(`bench writes: n/a on the embedded database (the peer runs on PostgreSQL: set DATABASE_URL)`)
    return null
  }
  console.log(`bench writes: postgres, ${options.duration} s per figure, ${options.connections} connections`)
  const writes = await measureWrites(process.env.DATABASE_URL, options)
  console.log(describeWrites(writes))
  console.log(`  ${writesMet(writes) ? 'met ' : 'MISS'}  ${WRITES_TARGET}`)
  return writes
}
