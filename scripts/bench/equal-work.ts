// Compared figures that do the same work on both sides, and the checks that show they did.
//
// - A cached figure is compared with the bare bytes peer sending, for every request, what our
//   server sent for it (the same bytes, framed alike with `content-length`); an uncached one with
//   the bare node:http + pg peer. Requests follow one fixed sequence of paths (scripts/bench/measure.ts
//   `spread`), the same on both sides, long enough that concurrent requests differ: neither side
//   may answer many requests with one query (src/content/post-cache.ts merges concurrent loads of
//   one id even with its cache off). A burst of one URL gets a figure of its own ("merged").
// - Each side gets the same warm-up run, right before its figure.
// - Before measuring, both sides are asked every path of the sequence once: they must give the same
//   answer (bytes for the bytes peer, less the request id; data and paging for the pg peer) with the
//   same framing. On PostgreSQL the service's reads of posts are counted then, one request at a
//   time, and over its warm-up and figure (scripts/bench/sql-count.ts): a cached figure reads no
//   posts; an uncached one reads as much per request as a request alone does (a load each, no
//   request answered from another's).
import { get } from 'node:http'
import { isDeepStrictEqual } from 'node:util'
import { measure, spread, withRatio, type Figure } from './measure.ts'
import type { SqlCounter } from './sql-count.ts'

/** What the service is expected to do per request: nothing from the database for posts, a query each, or fewer (merged). */
export type Work = 'cached' | 'uncached' | 'merged'

export interface FigureSpec {
  name: string
  /** The paths requests take, in turn. */
  paths: string[]
  work: Work
  connections?: number
  /** Sent with every request (and with the check's): an admin's token, for instance. */
  headers?: Record<string, string>
}

export interface PeerSide {
  url: string
  /** bytes: the fixed-answer peer, compared to the byte; pg: the node:http + pg peer, compared by data. */
  answers: 'bytes' | 'data'
}

export interface Fairness {
  figure: string
  work: Work
  /** Against the peer: how many paths were compared, and where the two differed. */
  answers: { paths: number; differences: string[] } | null
  /**
   * The service's reads over warm-up and figure (PostgreSQL only), and what one request of the
   * sequence reads of posts on average when it runs alone (one query may read posts many times).
   */
  sql: { requests: number; postsReads: number; generationReads: number; loneReadsPerRequest: number } | null
  /** Reads of posts per request over those of a request alone: 1 a load each, 0 none, between merged. */
  loadsPerRequest: number | null
  /** What contradicts the figure's claim: differing answers, reads where none belong or too few. */
  problems: string[]
}

export interface Compared {
  peer?: Figure
  ours: Figure
  fairness: Fairness
}

interface Answer {
  status: number
  headers: Record<string, string>
  body: Buffer
}

function answerOf(url: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    get(url, { headers }, (response) => {
      const chunks: Buffer[] = []
      response.on('data', (chunk: Buffer) => chunks.push(chunk))
      response.on('end', () =>
        resolve({
          status: response.statusCode!,
          headers: Object.fromEntries(Object.entries(response.headers).map(([name, value]) => [name, String(value)])),
          body: Buffer.concat(chunks),
        }),
      )
    }).on('error', reject)
  })
}

/** How the body is delimited: by its length, or chunked. */
const framing = (answer: Answer) =>
  answer.headers['transfer-encoding'] === undefined
    ? `content-length${Number(answer.headers['content-length']) === answer.body.length ? '' : " (not the body's)"}`
    : `transfer-encoding ${answer.headers['transfer-encoding']}`

/** Headers that differ per request or per connection on any server. */
const PER_REQUEST = new Set(['date', 'x-request-id', 'connection', 'keep-alive'])

/** The body less what differs per request: the request id, and /ping's clock. */
const steady = (answer: Answer) =>
  answer.body
    .toString('latin1')
    .replaceAll(answer.headers['x-request-id'] ?? '\u0000', '<request id>')
    .replace(/^(\{"data":\{"status":"ok","version":"[^"]*","time":")[^"]*"/, '$1<now>"')

function differenceOf(kind: PeerSide['answers'], peer: Answer, ours: Answer): string | null {
  if (peer.status !== ours.status) return `status ${peer.status} against ours ${ours.status}`
  if (framing(peer) !== framing(ours)) return `framing ${framing(peer)} against ours ${framing(ours)}`
  if (kind === 'bytes') {
    const headers = (answer: Answer) =>
      Object.entries(answer.headers)
        .filter(([name]) => !PER_REQUEST.has(name))
        .sort()
    const [theirs, mine] = [headers(peer), headers(ours)]
    const differing = [...new Set([...theirs, ...mine].map(([name]) => name))].filter(
      (name) => peer.headers[name] !== ours.headers[name],
    )
    if (differing.length > 0) return `other headers: ${differing.join(', ')}`
    return steady(peer) === steady(ours) ? null : 'other bytes'
  }
  type Envelope = { data: unknown; meta: { page?: unknown } }
  const [theirs, mine] = [peer, ours].map((answer) => JSON.parse(answer.body.toString('utf8')) as Envelope) as [
    Envelope,
    Envelope,
  ]
  if (!isDeepStrictEqual(theirs.data, mine.data)) return 'other data'
  return isDeepStrictEqual(theirs.meta.page, mine.meta.page) ? null : 'other paging'
}

/** Every path of the sequence once on both sides: where their answers differ. */
export async function answerDifferences(peer: PeerSide, ours: string, paths: string[]): Promise<string[]> {
  const differences: string[] = []
  for (const path of new Set(paths)) {
    const difference = differenceOf(
      peer.answers,
      await answerOf(`${peer.url}${path}`),
      await answerOf(`${ours}${path}`),
    )
    if (difference !== null) differences.push(`${path}: ${difference}`)
  }
  return differences
}

export interface EqualWorkOptions {
  /** Seconds per figure, and per warm-up. */
  duration: number
  warmSeconds: number
  connections: number
  /** On PostgreSQL: the service's SQL, counted. */
  counter?: SqlCounter
}

export function makeEqualWork(options: EqualWorkOptions) {
  const fairness: Fairness[] = []

  /** The same warm-up, then the figure, on one side. */
  async function run(name: string, url: string, spec: FigureSpec) {
    const connections = spec.connections ?? options.connections
    const warm = await measure(`${name} (warm-up)`, {
      url,
      headers: spec.headers,
      connections,
      duration: options.warmSeconds,
      ...spread(spec.paths),
    })
    const figure = await measure(name, {
      url,
      headers: spec.headers,
      connections,
      duration: options.duration,
      ...spread(spec.paths),
    })
    return { warm, figure }
  }

  /**
   * Our figure for `spec` on the server at `ours`: after its peer's, when there is one (else as a
   * ratio to `baseline`, another of our figures), with the checks of its fairness.
   */
  async function compare(spec: FigureSpec, ours: string, against: { peer?: PeerSide; baseline?: Figure }) {
    const { peer } = against
    const { counter } = options
    await counter?.settle(ours, Date.now())
    const beforeCheck = await counter?.read()
    // Every path once, one at a time: both sides must answer alike; our reads meanwhile are what
    // one request of the sequence costs when no other runs beside it. A cached figure then
    // measures hits only.
    const differences = peer ? await answerDifferences(peer, ours, spec.paths) : []
    if (!peer) {
      for (const path of new Set(spec.paths)) {
        const answer = await answerOf(`${ours}${path}`, spec.headers)
        if (answer.status !== 200) differences.push(`${path}: status ${answer.status}`)
      }
    }
    await counter?.settle(ours, Date.now())
    const before = await counter?.read()
    // The peer reads a copy of the database (or none): it adds nothing to our counts.
    const peerFigure = peer ? (await run('  bare peer', peer.url, spec)).figure : undefined
    const { warm, figure } = await run(spec.name, ours, spec)
    await counter?.settle(ours, Date.now())
    const after = await counter?.read()

    const requests = (warm.requests ?? 0) + (figure.requests ?? 0)
    const sql =
      beforeCheck && before && after
        ? {
            requests,
            postsReads: after.postsReads - before.postsReads,
            generationReads: after.generationReads - before.generationReads,
            loneReadsPerRequest: (before.postsReads - beforeCheck.postsReads) / new Set(spec.paths).size,
          }
        : null
    // Reads of posts per request, in requests' worth read alone: 1 when each request made its own load.
    const loads = sql && sql.loneReadsPerRequest > 0 ? sql.postsReads / requests / sql.loneReadsPerRequest : null
    const problems = [...differences]
    if (sql && spec.work === 'cached' && sql.postsReads > 0.01 * requests)
      problems.push(`cached, yet ${sql.postsReads} reads of posts for ${requests} requests`)
    if (sql && spec.work === 'uncached' && (loads === null || loads < 0.9))
      problems.push(
        `uncached, yet ${sql.postsReads} reads of posts for ${requests} requests, ${sql.loneReadsPerRequest.toFixed(1)} each alone`,
      )
    const checked: Fairness = {
      figure: spec.name,
      work: spec.work,
      answers: peer ? { paths: new Set(spec.paths).size, differences } : null,
      sql,
      loadsPerRequest: loads === null ? null : Math.round(loads * 100) / 100,
      problems,
    }
    fairness.push(checked)
    const baseline = peerFigure ?? against.baseline
    const ourFigure: Figure = {
      ...(baseline ? withRatio(figure, baseline) : figure),
      ...(sql && {
        sql: {
          postsReadsPerRequest: Math.round((sql.postsReads / requests) * 100) / 100,
          loadsPerRequest: checked.loadsPerRequest,
          generationReadsPerRequest: Math.round((sql.generationReads / requests) * 100) / 100,
        },
      }),
    }
    return { peer: peerFigure, ours: ourFigure, fairness: checked } satisfies Compared
  }

  return { compare, fairness }
}

/** The fairness checks, one line each: `ok` or what was wrong. */
export function formatFairness(checks: Fairness[]): string {
  return checks
    .map((check) => {
      const answers = check.answers ? `same answers on ${check.answers.paths} paths` : 'no peer'
      const sql = check.sql
        ? `${check.sql.postsReads} reads of posts for ${check.sql.requests} requests (${check.sql.loneReadsPerRequest.toFixed(1)} a request alone): ${check.loadsPerRequest ?? 0} loads a request`
        : 'SQL not counted (embedded database)'
      const verdict = check.problems.length === 0 ? 'ok  ' : 'FAIL'
      return `  ${verdict}  ${check.figure.padEnd(40)} ${check.work.padEnd(8)} ${check.problems.length === 0 ? answers : check.problems.slice(0, 3).join('; ')}; ${sql}`
    })
    .join('\n')
}
