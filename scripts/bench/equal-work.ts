// Compared figures that do the same work on both sides, and the checks that show they did.
//
// - A cached figure is compared with the bare bytes peer sending, for every request, what our
//   server sent for it (the same bytes, framed alike with `content-length`); an uncached one with
//   the bare node:http + pg peer. Requests follow one fixed sequence of paths (scripts/bench/measure.ts
//   `spread`), the same on both sides, long enough that concurrent requests differ: neither side
//   may answer many requests with one query (src/content/posts/post-cache.ts merges concurrent loads of
//   one id even with its cache off). A burst of one URL gets a figure of its own ("merged").
// - Each side gets the same warm-up run, right before its figure; which side runs first alternates
//   from one figure to the next.
// - Before measuring, both sides are asked every path of the sequence once: they must give the same
//   answer (scripts/bench/answers.ts). On PostgreSQL the service's reads of its tables are counted
//   then, one request at a time, and over its warm-up and figure, one sequence whose last pass is
//   then completed (scripts/bench/sql-count.ts), per request sent: a cached figure reads no table (a cached list page or feed: the lists' generation,
//   once a request); an uncached one reads posts as much per request as a request alone does (a
//   load each, no request answered from another's); a merged one less.
import { answerDifferences, answerOf, statusDifferences, type PeerSide } from './answers.ts'
import { measure, spread, withRatio, type Figure } from './measure.ts'
import type { SqlCount, SqlCounter } from './sql-count.ts'

/** What the service is expected to do per request: nothing from the database, a query each, or fewer (merged). */
export type Work = 'cached' | 'uncached' | 'merged'

export interface FigureSpec {
  name: string
  /** The paths requests take, in turn: distinct. */
  paths: string[]
  work: Work
  /** Cached list pages and feeds: each request reads the lists' generation once (src/db/list-generation.ts). */
  readsGeneration?: boolean
  connections?: number
  /** Sent with every request (and with the check's): an admin's token, for instance. */
  headers?: Record<string, string>
}

/**
 * Loads per request of an uncached figure, and reads of the generation per request of a cached
 * list or feed, must lie in this band. Both sides of the ratio count the same requests: those
 * sent, the ones in flight when a run stops included (the server works on them all the same),
 * over whole passes of the paths. What is left is the odd background read and a plan the
 * planner changes meanwhile (an autoanalyze after seeding): a few reads, well under 5 % of a
 * figure's hundreds or thousands of requests. A fifth of the loads merged (0.8) is far outside.
 */
export const PER_REQUEST_BAND = { min: 0.95, max: 1.05 }

/**
 * Reads a figure may show beyond its requests' own: the service's jobs on its pool, which may
 * fall in a figure (render-posts' probe of posts every 5 minutes, the hourly sweeps; src/jobs): a
 * round of them reads tens of rows of several tables. A cached answer that read a table would
 * read it on every one of thousands of requests (a list page: about 40 reads of posts each).
 */
export const BACKGROUND_READS = 100

export interface SqlReads extends SqlCount {
  /** Requests sent over warm-up and figure, and those completing their last pass over the paths. */
  requests: number
  /** What one request of the sequence reads of posts on average when it runs alone (one query may read posts many times). */
  loneReadsPerRequest: number
}

export interface Fairness {
  figure: string
  work: Work
  /** Every distinct path asked once: against the peer, or for a 200 without one; where they differed. */
  answers: { paths: number; peer: boolean; differences: string[] }
  /** The service's reads over warm-up and figure (PostgreSQL only). */
  sql: SqlReads | null
  /** Reads of posts per request over those of a request alone: 1 a load each, 0 none, between merged. */
  loadsPerRequest: number | null
  /** Where the reads contradict the figure's claim. */
  sqlProblems: string[]
  /** The answers' differences, then the reads' problems. */
  problems: string[]
}

export interface Compared {
  peer?: Figure
  ours: Figure
  fairness: Fairness
}

const round2 = (value: number) => Math.round(value * 100) / 100

/** Where the service's reads over a figure contradict the work it claims. */
export function readProblems(
  spec: Pick<FigureSpec, 'work' | 'readsGeneration'>,
  sql: SqlReads,
  connections: number,
): string[] {
  const { requests } = sql
  const loads = loadsOf(sql)
  const inBand = (value: number | null) =>
    value !== null && value >= PER_REQUEST_BAND.min && value <= PER_REQUEST_BAND.max
  if (spec.work === 'cached') {
    const problems: string[] = []
    const unexpected = sql.postsReads + sql.otherReads + (spec.readsGeneration ? 0 : sql.generationReads)
    if (unexpected > BACKGROUND_READS)
      problems.push(
        `cached, yet ${unexpected} reads for ${requests} requests (posts ${sql.postsReads}, generation ${sql.generationReads}, other tables ${sql.otherReads})`,
      )
    // Each request waits for a generation read started after it arrived, shared by the requests
    // of its turn of the event loop (src/db/read-after-arrival.ts): a connection has one request
    // at a time (autocannon does not pipeline), so a read serves at most one request a connection.
    const generationPerRequest = sql.generationReads / requests
    const fewest = PER_REQUEST_BAND.min / connections
    if (spec.readsGeneration && (generationPerRequest < fewest || generationPerRequest > PER_REQUEST_BAND.max))
      problems.push(
        `cached list, yet ${generationPerRequest.toFixed(2)} reads of the generation a request (${fewest.toFixed(2)} to ${PER_REQUEST_BAND.max} with ${connections} connections)`,
      )
    return problems
  }
  const detail = `${sql.postsReads} reads of posts for ${requests} requests, ${sql.loneReadsPerRequest.toFixed(1)} each alone`
  if (spec.work === 'uncached')
    return inBand(loads) ? [] : [`uncached, yet ${loads?.toFixed(2) ?? 'n/a'} loads a request (${detail})`]
  return loads !== null && loads < PER_REQUEST_BAND.min
    ? []
    : [`merged, yet ${loads?.toFixed(2) ?? 'n/a'} loads a request (${detail}): requests did not share loads`]
}

/** Reads of posts per request, in requests' worth read alone: 1 when each request made its own load. */
const loadsOf = (sql: SqlReads) =>
  sql.loneReadsPerRequest > 0 ? sql.postsReads / sql.requests / sql.loneReadsPerRequest : null

export interface EqualWorkOptions {
  /** Seconds per figure, and per warm-up. */
  duration: number
  /**
   * Instead of `duration`: each figure sends this many whole passes over its paths, however fast
   * the machine (the fairness test, whose counts must not depend on the machine's speed).
   */
  passes?: number
  warmSeconds: number
  /**
   * Seconds of the round's reads on each side before its first figure (warmProcesses): a server
   * process runs its first minute slower while V8 compiles its paths.
   */
  processWarmSeconds?: number
  connections: number
  /** On PostgreSQL: the service's SQL, counted. */
  counter?: SqlCounter
}

/** Callers send nothing to a server between two of its compared figures: each counts from the last one's end. */
export function makeEqualWork(options: EqualWorkOptions) {
  const fairness: Fairness[] = []
  /** The counts as the last figure left them, once settled, and the server it ran on. */
  let settled: { server: string; count: SqlCount } | undefined
  let compared = 0

  /** The same warm-up, then the figure, on one side: one sequence of paths over both. */
  async function run(name: string, url: string, spec: FigureSpec) {
    const sequence = spread(spec.paths)
    const runFor = (label: string, length: { duration: number } | { amount: number }) =>
      measure(label, {
        url,
        headers: spec.headers,
        connections: spec.connections ?? options.connections,
        ...length,
        requests: sequence.requests,
      })
    const warm = await runFor(`${name} (warm-up)`, { duration: options.warmSeconds })
    const figure = await runFor(
      name,
      options.passes ? { amount: options.passes * spec.paths.length } : { duration: options.duration },
    )
    return { warm, figure, sequence }
  }

  /**
   * Our figure for `spec` on the server at `ours`, next to its peer's when there is one (else as a
   * ratio to `baseline`, another of our figures), with the checks of its fairness.
   */
  async function compare(spec: FigureSpec, ours: string, against: { peer?: PeerSide; baseline?: Figure }) {
    const { peer } = against
    const { counter } = options
    const paths = new Set(spec.paths).size
    let beforeCheck = settled?.server === ours ? settled.count : undefined
    if (counter && !beforeCheck) {
      await counter.settle(ours, Date.now())
      beforeCheck = await counter.read()
    }
    // Every path once, one at a time: both sides must answer alike; our reads meanwhile are what
    // one request of the sequence costs when no other runs beside it. A cached figure then
    // measures hits only.
    const differences = peer
      ? await answerDifferences(peer, ours, spec.paths, spec.headers)
      : await statusDifferences(ours, spec.paths, spec.headers)
    const checked = Date.now()
    // The peer's runs send the service nothing (it reads a copy of the database, or none): our
    // counts from `before` to `after` are our runs' and their last pass's. Whatever favours the first or
    // the second run of a pair (a CPU's clock, the page cache, a collection in this process) falls
    // on either side in turn, and the peer's runs cover most of a settle's wait.
    const peerFirst = compared++ % 2 === 0
    let peerFigure = peer && peerFirst ? (await run('  bare peer', peer.url, spec)).figure : undefined
    await counter?.settle(ours, checked)
    const before = await counter?.read()
    const { figure, sequence } = await run(spec.name, ours, spec)
    // Paths may read unequally (a page of 40 posts more than a page of 1): the reads are compared
    // with whole passes over the paths, the pass the runs left partial completed one request at a
    // time, untimed. Requests sent count, in flight at a run's stop too: the server works on them.
    const rest = sequence.rest()
    for (const path of rest) await answerOf(`${ours}${path}`, spec.headers)
    const requests = sequence.sent() + rest.length
    const ran = Date.now()
    if (peer && !peerFirst) peerFigure = (await run('  bare peer', peer.url, spec)).figure
    await counter?.settle(ours, ran)
    const after = await counter?.read()
    if (after) settled = { server: ours, count: after }

    const sql: SqlReads | null =
      beforeCheck && before && after
        ? {
            requests,
            postsReads: after.postsReads - before.postsReads,
            generationReads: after.generationReads - before.generationReads,
            otherReads: after.otherReads - before.otherReads,
            loneReadsPerRequest: (before.postsReads - beforeCheck.postsReads) / paths,
          }
        : null
    const loads = sql && loadsOf(sql)
    const sqlProblems = sql ? readProblems(spec, sql, spec.connections ?? options.connections) : []
    const checks: Fairness = {
      figure: spec.name,
      work: spec.work,
      answers: { paths, peer: peer !== undefined, differences },
      sql,
      loadsPerRequest: loads === null ? null : round2(loads),
      sqlProblems,
      problems: [...differences, ...sqlProblems],
    }
    fairness.push(checks)
    const baseline = peerFigure ?? against.baseline
    const ourFigure: Figure = {
      ...(baseline ? withRatio(figure, baseline) : figure),
      ...(sql && {
        sql: {
          postsReadsPerRequest: round2(sql.postsReads / requests),
          loadsPerRequest: checks.loadsPerRequest,
          generationReadsPerRequest: round2(sql.generationReads / requests),
          otherReadsPerRequest: round2(sql.otherReads / requests),
        },
      }),
    }
    return { peer: peerFigure, ours: ourFigure, fairness: checks } satisfies Compared
  }

  /**
   * A new process's first minute: every path of the round read on our server, then the paths the
   * peer answers for as long on the peer, before any figure (and before any count of reads).
   * Measured on a fresh server, /ping cost 66 µs of JavaScript per request in its first 10 s and
   * 35-39 µs after 40 s (`npm run bench:hooks`), while the bare peer runs at its speed within a
   * second: each round would otherwise measure our warm-up against the peer's steady state.
   */
  async function warmProcesses(ours: { url: string; paths: string[] }, peer?: { url: string; paths: string[] }) {
    const seconds = options.processWarmSeconds ?? 0
    if (seconds === 0) return
    for (const side of peer === undefined ? [ours] : [ours, peer])
      await measure('  process warm-up', {
        url: side.url,
        connections: options.connections,
        duration: seconds,
        ...spread(side.paths),
      })
  }

  return { compare, warmProcesses, fairness }
}

/** The fairness checks, one line each: `ok` or what was wrong. */
export function formatFairness(checks: Fairness[]): string {
  return checks
    .map((check) => {
      const answers = `${check.answers.peer ? "the peer's answers" : '200'} on ${check.answers.paths} paths`
      const sql = check.sql
        ? `${check.sql.requests} requests sent: ${check.sql.postsReads} reads of posts (${check.sql.loneReadsPerRequest.toFixed(1)} a request alone), ${check.loadsPerRequest?.toFixed(2) ?? 'n/a'} loads a request; ${check.sql.generationReads} of the generation; ${check.sql.otherReads} of other tables`
        : 'reads n/a (embedded database: answers only)'
      const verdict = check.problems.length === 0 ? 'ok  ' : 'FAIL'
      return `  ${verdict}  ${check.figure.padEnd(40)} ${check.work.padEnd(8)} ${check.problems.length === 0 ? answers : check.problems.slice(0, 3).join('; ')}; ${sql}`
    })
    .join('\n')
}
