// The benchmark's revision figures (issue 36): updatePost latency with revisions on (the default,
// POST_REVISIONS_MAX=50) against the same updates with them off (POST_REVISIONS_MAX=0), in the
// same run, and the bytes the revision tables hold after 1 000 edits of a 100 000-character post.
// Each side is a server of its own on a scratch database of its own, seeded alike; the sides run
// on, off, off, on (each after the same warm-up), and each side's figure is its two runs together.
// Both servers lift the author's write budget alike (BENCH_WRITE_BUDGET): every edit still pays its upsert.
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { scratchDatabase, type ScratchDatabase } from './database.ts'
import { BENCH_WRITE_BUDGET } from './seed.ts'
import { startServer, type RunningServer } from './server.ts'

export const REVISIONS_TARGET = 'updatePost p50 with revisions <= 1.3 x with revisions off (POST_REVISIONS_MAX=0)'

export interface RevisionsResult {
  on: { p50Ms: number; p99Ms: number }
  off: { p50Ms: number; p99Ms: number }
  /** on.p50Ms / off.p50Ms: the target is at most 1.3. */
  ratio: number
  /** Bytes of post_revisions and post_revision_images (with their TOAST and indexes) after the big edits. */
  bigPost: {
    edits: number
    bodyChars: number
    revisionBytes: number
    /** The rows' own bytes (pg_column_size): what is kept, without the space deleted rows left for reuse. */
    liveBytes: number
    rows: number
    seconds: number
  }
  failures: number
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!

async function json(url: string, init: RequestInit & { token?: string }) {
  const response = await fetch(url, {
    ...init,
    headers: {
      'content-type': 'application/json',
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
    },
  })
  return { status: response.status, body: (await response.json()) as { data: { id: string; accessToken: string } } }
}

async function author(base: string) {
  const answer = await json(`${base}/register`, {
    method: 'POST',
    body: JSON.stringify({
      email: `rev-${randomBytes(4).toString('hex')}@example.com`,
      password: 'revisions-bench-1234',
      name: 'Bench',
    }),
  })
  return answer.body.data.accessToken
}

/** Text that compresses about as little as prose does not: TOAST would shrink repeated text to nothing. */
const text = (chars: number) =>
  randomBytes(Math.ceil((chars * 3) / 4))
    .toString('base64')
    .slice(0, chars)

/** `count` updates of one post's title and body, one at a time; their latencies, sorted, and failures. */
async function edits(base: string, token: string, postId: string, count: number, bodyChars: number) {
  const times: number[] = []
  let failures = 0
  for (let edit = 0; edit < count; edit++) {
    const started = performance.now()
    const answer = await fetch(`${base}/posts/${postId}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ title: `Edit ${edit} ${randomBytes(3).toString('hex')}`, body: text(bodyChars) }),
    })
    await answer.arrayBuffer()
    times.push(performance.now() - started)
    if (answer.status !== 200) failures++
  }
  return { times, failures }
}

async function side(database: ScratchDatabase, revisionsMax: string) {
  const server = await startServer({
    ...database.env,
    POST_REVISIONS_MAX: revisionsMax,
    REGISTER_LIMIT_PER_ADDRESS: '1000000',
    // One author makes every edit: 1 200 and more in a few minutes, far past WRITE_BUDGET's 120 a minute.
    ...BENCH_WRITE_BUDGET,
  })
  const token = await author(server.url)
  const post = await json(`${server.url}/posts`, {
    method: 'POST',
    token,
    body: JSON.stringify({ title: 'Bench post', body: text(2000), status: 'published' }),
  })
  return { server, token, postId: post.body.data.id }
}

/** The revision tables' bytes on the database the server used (PostgreSQL, or the embedded one's folder once it stopped). */
async function revisionBytes(database: ScratchDatabase, server: RunningServer) {
  const sql = `select coalesce(pg_total_relation_size('post_revisions'), 0) + coalesce(pg_total_relation_size('post_revision_images'), 0) as bytes,
    (select count(*) from post_revisions)::int as rows,
    (select coalesce(sum(pg_column_size(r.*)), 0) from post_revisions r)::bigint as live`
  if (database.kind === 'postgres') {
    const client = new pg.Client({ connectionString: database.env.DATABASE_URL })
    await client.connect()
    try {
      await client.query('vacuum post_revisions')
      const { rows } = await client.query<{ bytes: string; rows: number; live: string }>(sql)
      return { bytes: Number(rows[0]!.bytes), rows: rows[0]!.rows, live: Number(rows[0]!.live) }
    } finally {
      await client.end()
    }
  }
  await server.stop()
  const { PGlite } = await import('@electric-sql/pglite')
  const db = new PGlite(database.env.DATA_DIR)
  try {
    await db.exec('vacuum post_revisions')
    const { rows } = await db.query<{ bytes: string; rows: number; live: string }>(sql)
    return { bytes: Number(rows[0]!.bytes), rows: rows[0]!.rows, live: Number(rows[0]!.live) }
  } finally {
    await db.close()
  }
}

export async function measureRevisions(
  databaseUrl: string | undefined,
  { samples = 100, bigEdits = 1000, bodyChars = 100_000 } = {},
): Promise<RevisionsResult> {
  const [onDb, offDb] = [await scratchDatabase(databaseUrl), await scratchDatabase(databaseUrl)]
  const on = await side(onDb, '50')
  const off = await side(offDb, '0')
  try {
    const timed = { on: [] as number[], off: [] as number[] }
    let failures = 0
    for (const [name, run] of [
      ['on', on],
      ['off', off],
      ['off', off],
      ['on', on],
    ] as const) {
      await edits(run.server.url, run.token, run.postId, 10, 2000) // the same warm-up before each run
      const result = await edits(run.server.url, run.token, run.postId, samples, 2000)
      timed[name].push(...result.times)
      failures += result.failures
    }
    const figure = (times: number[]) => {
      const sorted = [...times].sort((a, b) => a - b)
      return { p50Ms: percentile(sorted, 0.5), p99Ms: percentile(sorted, 0.99) }
    }
    await off.server.stop()
    const big = await json(`${on.server.url}/posts`, {
      method: 'POST',
      token: on.token,
      body: JSON.stringify({ title: 'A long post', body: text(bodyChars), status: 'published' }),
    })
    const started = performance.now()
    const bigRun = await edits(on.server.url, on.token, big.body.data.id, bigEdits, bodyChars)
    const seconds = (performance.now() - started) / 1000
    failures += bigRun.failures
    const bytes = await revisionBytes(onDb, on.server)
    const [onFigure, offFigure] = [figure(timed.on), figure(timed.off)]
    return {
      on: onFigure,
      off: offFigure,
      ratio: onFigure.p50Ms / offFigure.p50Ms,
      bigPost: {
        edits: bigEdits,
        bodyChars,
        revisionBytes: bytes.bytes,
        liveBytes: bytes.live,
        rows: bytes.rows,
        seconds,
      },
      failures,
    }
  } finally {
    await on.server.stop()
    await off.server.stop()
    await onDb.drop()
    await offDb.drop()
  }
}

export const formatRevisions = (result: RevisionsResult) =>
  [
    `  updatePost, revisions on:  p50 ${result.on.p50Ms.toFixed(1)} ms, p99 ${result.on.p99Ms.toFixed(1)} ms`,
    `  updatePost, revisions off: p50 ${result.off.p50Ms.toFixed(1)} ms, p99 ${result.off.p99Ms.toFixed(1)} ms`,
    `  ratio (p50): ${result.ratio.toFixed(2)}x  (target <= 1.3)`,
    `  after ${result.bigPost.edits} edits of a ${result.bigPost.bodyChars}-character post: revision tables ${(result.bigPost.revisionBytes / 1024 / 1024).toFixed(1)} MiB on disk, ${(result.bigPost.liveBytes / 1024 / 1024).toFixed(1)} MiB in live rows, ${result.bigPost.rows} rows (all posts), ${result.bigPost.seconds.toFixed(0)} s`,
    `  failed requests: ${result.failures}`,
  ].join('\n')

export const revisionsMet = (result: RevisionsResult) => result.failures === 0 && result.ratio <= 1.3
