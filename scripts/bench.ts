// `npm run bench`: starts the service (embedded database, or PostgreSQL when DATABASE_URL is set,
// in a database of its own that is dropped afterwards), seeds it over HTTP (60 posts of about 2 KB
// in 5 categories) and measures with autocannon in one run, each read figure next to its bare
// peer (scripts/bench/peer-server.ts; which runs first alternates), both sides doing the same work and shown to
// (scripts/bench/equal-work.ts, scripts/bench/read-figures.ts): the same sequence of paths, spread
// so that no two concurrent requests ask for the same thing, the same warm-up before each side,
// the same answers, and on PostgreSQL the service's reads of its tables counted during each figure:
// - GET /ping, getPost, getFeed and listPosts (first pages, pages behind a cursor, a category's
//   pages), cached, against a bare node:http server sending the very bytes our server sent for
//   them, with the same framing;
// - getPost and listPosts with the caches off, against a bare node:http + pg server answering
//   each with one SQL query (PostgreSQL only; it reads a copy of the service's database); getFeed
//   with the cache off, against getFeed cached; one id and one list URL from every connection with
//   the caches off (what merging concurrent loads gives), against the spread figures; and, with no
//   verdict, the comparisons made before equal work, the pg peer on /posts?limit=20 alone among them;
// - the server's RSS and heap idle after start-up, at peak under the read load, and after it;
// - the read figures above and that memory in rounds (BENCH_ROUNDS, 3), each round on a server
//   process of its own, started and left idle first: each figure and its verdict are the median
//   round's, every round's ratios printed beside it (scripts/bench/rounds.ts), each round's server
//   and peer first warmed alike on its reads (alone, with their targets: `npm run bench -- reads`);
// - getPostBySlug, cached and with the cache off, against getPost's figures;
// - cached getPost signed in with an API token against the same with a JWT (scripts/bench/token-reads.ts;
//   alone: `npm run bench -- tokens`);
// - login, and getPost and /ping while logins run; then /ping under abuse (hostile uploads and
//   pathological bodies, scripts/bench/abuse.ts) with the server's memory before, during and after;
// - an innocent user's createPost while three accounts flood the renderer with 100 000-character
//   tables, then with 4 136-character tables 1 000 columns wide, against its latency idle
//   (scripts/bench/render-flood.ts);
// - the list pages after one account published 100 heavy posts, their bytes and the server's
//   RSS while ten anonymous readers read them (scripts/bench/list-abuse.ts);
// - webhook delivery latency (event to receiver) p50 and p99, and getPost cached while a burst of
//   1,000 events is made and delivered (reads measured over the burst, from its first write to its
//   last event), against its figure idle and during the same writes with the endpoint paused; and
//   the server's CPU time per comment write, with no reads (scripts/bench/webhooks.ts);
// - on each storage driver (the database, then an S3-compatible store in a process of its own):
//   uploadMedia's latency and the server's RSS while 12 uploads run at once, and getImage's
//   throughput against a bare node:http server sending the same bytes (scripts/bench/media.ts;
//   alone: `npx tsx scripts/bench-media.ts`);
// - updatePost latency with post revisions on against off (POST_REVISIONS_MAX=0), and the revision
//   tables' bytes after 1 000 edits of a 100 000-character post (scripts/bench/revisions.ts; alone:
//   `npx tsx scripts/bench-revisions.ts`);
// - createComment, createPost and updatePost against a bare node:http + pg server running the same
//   statements in the same transaction (scripts/bench/write-peer.ts), rate limits, write budgets,
//   revisions and the webhook lookup on our side, then with a webhook endpoint subscribed
//   (PostgreSQL only; scripts/bench/writes.ts; alone: `npm run bench -- writes`).
// The server runs with each account's write budget lifted (BENCH_WRITE_BUDGET, scripts/bench/seed.ts):
// the seed, the webhook bursts, the render flood, the list abuse and the abusers write far more
// than 120 a minute from one account. Still counted: every write pays the budget's one upsert.
// And with comment moderation and flood control off (BENCH_COMMENTS, same file): the webhook
// bursts' writers comment as new accounts far more often than every 15 s, and count comment.created.
// Results are printed and written to bench-results/.
import { mkdirSync, writeFileSync } from 'node:fs'
import { cpus } from 'node:os'
import { join } from 'node:path'
import autocannon from 'autocannon'
import { measureAbuse, prepareAttacks } from './bench/abuse.ts'
import { describeListAbuse, LIST_ABUSE_TARGET, listAbuseMet, measureListAbuse } from './bench/list-abuse.ts'
import { scratchDatabase } from './bench/database.ts'
import { formatFairness, makeEqualWork, type Compared, type Fairness } from './bench/equal-work.ts'
import { formatFigure, measure as measureWith, measureUntil, withRatio, type Figure } from './bench/measure.ts'
import { readMemory, watchPeakRss, type Memory } from './bench/memory.ts'
import {
  FLOOD_BODIES,
  formatRenderFlood,
  measureRenderFlood,
  type FloodBody,
  type RenderFloodResult,
} from './bench/render-flood.ts'
import { startPeer, type Peer } from './bench/peers.ts'
import { cachedFigures, readPaths, startBytesPeer, uncachedFigures } from './bench/read-figures.ts'
import { BENCH_ADMIN, BENCH_COMMENTS, BENCH_WRITE_BUDGET, seed } from './bench/seed.ts'
import { startServer, type RunningServer } from './bench/server.ts'
import { openSqlCounter, type SqlCounter } from './bench/sql-count.ts'
import {
  benchTokensOnly,
  credentialsOf,
  measureTokenReads,
  TOKEN_BENCH_ENV,
  TOKEN_READS_TARGET,
  tokenReadsMet,
} from './bench/token-reads.ts'
import { measureWebhooks } from './bench/webhooks.ts'
import { formatRevisions, measureRevisions, revisionsMet, REVISIONS_TARGET } from './bench/revisions.ts'
import { medianValue, mediansOf, middleIndex, ROUNDS, type MedianCompared } from './bench/rounds.ts'
import { describeMedia, MEDIA_BENCH_ENV, measureMedia, startS3Process, type MediaFigures } from './bench/media.ts'
import { benchWritesOnly, describeWrites, measureWrites, WRITES_TARGET, writesMet } from './bench/writes.ts'

const DURATION = Number(process.env.BENCH_DURATION_SECONDS ?? 10)
/** The warm-up run before each side of a compared figure, the same on both. */
const WARM_SECONDS = Math.min(2, DURATION)
/** Each read round's server and peer, warmed on the round's reads before its first figure (equal-work.ts). */
const PROCESS_WARM_SECONDS = Number(process.env.BENCH_PROCESS_WARM_SECONDS ?? 30)
const CONNECTIONS = 20
/** Distinct paths in each spread list figure: twice the connections, so no two at once are alike. */
const SPREAD = 2 * CONNECTIONS
const LOGINS_AT_ONCE = 20
const POSTS = 60
/** The server's pool size (DATABASE_POOL_MAX's default), given to the pg peer too. */
const POOL_MAX = 10

/**
 * autocannon stops at the deadline, but logins it abandoned are still queued for bcrypt on the
 * server: wait for them, so the next figure measures a server doing only what it is asked.
 */
const drainLogins = () => new Promise((resolve) => setTimeout(resolve, 8_000))
const settle = () => new Promise((resolve) => setTimeout(resolve, 2_000))
/**
 * Idle means nothing left to do: start-up's own work done, the admin's first sign-in included,
 * whose bcrypt thread the password pool lets go after 30 s without work (src/auth/passwords/passwords.ts).
 */
const untilIdle = () => new Promise((resolve) => setTimeout(resolve, 35_000))

const measure = (name: string, options: autocannon.Options) =>
  measureWith(name, { connections: CONNECTIONS, duration: DURATION, ...options })

/** `npm run bench -- reads`: the read figures and memory alone, in their rounds, with their targets. */
const READS_ONLY = process.argv[2] === 'reads'

interface Verdict {
  runs: Figure[]
  met: boolean
}

/** Prints each target met, missed or n/a, with the runs that were not all 2xx; returns them by name. */
function printVerdicts(verdicts: Record<string, Verdict | null>) {
  console.log(`\ntargets (read figures and memory: the median of ${ROUNDS} rounds, each on a server of its own):`)
  for (const [target, verdict] of Object.entries(verdicts)) {
    const failures =
      verdict?.runs
        .filter((run) => run.non2xx + run.errors > 0)
        .map((run) => `${run.name.trim()}: ${run.non2xx} non-2xx, ${run.errors} errors`)
        .join('; ') ?? ''
    console.log(
      `  ${verdict === null ? 'n/a ' : verdict.met ? 'met ' : 'MISS'}  ${target}${failures && `  (${failures})`}`,
    )
  }
  return Object.fromEntries(Object.entries(verdicts).map(([target, verdict]) => [target, verdict && verdict.met]))
}

if (process.argv[2] === 'writes') {
  const writes = await benchWritesOnly({ duration: DURATION, warmSeconds: WARM_SECONDS, connections: CONNECTIONS })
  process.exit(writes === null || writesMet(writes) ? 0 : 1)
}

if (process.argv[2] === 'tokens') {
  const reads = await benchTokensOnly({
    duration: DURATION,
    warmSeconds: WARM_SECONDS,
    connections: CONNECTIONS,
    posts: POSTS,
    env: { BCRYPT_COST: '12' },
  })
  process.exit(tokenReadsMet(reads) ? 0 : 1)
}

const database = await scratchDatabase(process.env.DATABASE_URL)
const kind = database.kind
// Production costs (bcrypt 12), limits out of the way: the benchmark logs in thousands of times.
const env = {
  ...database.env,
  ...BENCH_ADMIN,
  BCRYPT_COST: '12',
  LOGIN_LIMIT_PER_ACCOUNT: '100000',
  LOGIN_LIMIT_PER_ACCOUNT_ADDRESS: '100000',
  LOGIN_LIMIT_PER_ADDRESS: '1000000',
  REGISTER_LIMIT_PER_ADDRESS: '1000000',
  DATABASE_POOL_MAX: String(POOL_MAX),
  ...TOKEN_BENCH_ENV,
  ...BENCH_WRITE_BUDGET,
  // Every comment published at once, none refused for flooding: the webhook bursts count comment.created.
  ...BENCH_COMMENTS,
}

/**
 * The read rounds' servers, each a process of its own on a port of its own, all answering as the
 * first did (whose answers the bytes peer replays): a feed links to PUBLIC_URL, by default the
 * instance's own address, port included.
 */
const readEnv = { ...env, PUBLIC_URL: 'http://blog.bench.invalid' }

const figures: Figure[] = []
const report = (figure: Figure) => {
  figures.push(figure)
  console.log(formatFigure(figure))
}

/** A compared figure: its peer's figure first, when it has one. */
function reportCompared(compared: Compared) {
  if (compared.peer) report(compared.peer)
  report(compared.ours)
}
const fairness: Fairness[] = []

const peers: Peer[] = []
const counters: SqlCounter[] = []
/** On PostgreSQL: the service's reads, counted in its database's statistics. */
const counterFor = async (databaseUrl: string | undefined) => {
  if (databaseUrl === undefined) return undefined
  const counter = await openSqlCounter(databaseUrl, POOL_MAX)
  counters.push(counter)
  return counter
}
let server: RunningServer | undefined
try {
  console.log(
    `bench: ${kind} database, ${DURATION} s per figure, read figures in ${ROUNDS} rounds, ${CONNECTIONS} connections, ${cpus().length} cores, Node ${process.version}`,
  )
  server = await startServer(readEnv)
  await untilIdle()
  const idle: Memory[] = [await readMemory(server.child.pid!, server.url)]
  const data = await seed(server.url, POSTS)
  const paths = await readPaths(server.url, data, SPREAD)
  // The post the single-URL figures (logins, webhooks) read.
  const postPath = paths.posts[POSTS / 2]!
  const bytesPeer = await startBytesPeer(server.url, paths)
  peers.push(bytesPeer)
  const equalWork = (counter: SqlCounter | undefined) =>
    makeEqualWork({
      duration: DURATION,
      warmSeconds: WARM_SECONDS,
      processWarmSeconds: PROCESS_WARM_SECONDS,
      connections: CONNECTIONS,
      counter,
    })
  const closeCounters = () => Promise.all(counters.splice(0).map((counter) => counter.close()))

  // The read figures in rounds, each on a server process of its own, idle before (scripts/bench/rounds.ts).
  const cachedRounds: Awaited<ReturnType<typeof cachedFigures>>[] = []
  const peakUnderReads: number[] = []
  const afterReads: Memory[] = []
  for (let round = 1; round <= ROUNDS; round++) {
    if (round > 1) {
      await closeCounters()
      await server.stop()
      server = await startServer(readEnv)
      await untilIdle()
      idle.push(await readMemory(server.child.pid!, server.url))
    }
    const cachedWork = equalWork(await counterFor(database.env.DATABASE_URL))
    const readLoad = watchPeakRss(server.child.pid!)
    cachedRounds.push(await cachedFigures(cachedWork, server.url, bytesPeer, paths, CONNECTIONS))
    fairness.push(...cachedWork.fairness)
    peakUnderReads.push(readLoad.stop())
    await settle()
    afterReads.push(await readMemory(server.child.pid!, server.url))
  }
  const cached = mediansOf(cachedRounds)
  for (const compared of Object.values(cached)) reportCompared(compared)
  const ping = cached.ping
  const medianMemory = (memories: Memory[]) => memories[middleIndex(memories.map((memory) => memory.rssMiB))]!
  const [idleMemory, afterMemory] = [medianMemory(idle), medianMemory(afterReads)]
  const peakMemory = medianValue(peakUnderReads)
  // Cached getPost with API tokens, logins and reads during them (not in `npm run bench -- reads`).
  const underLogins = async (server: RunningServer) => {
    // An API token's check against a JWT's, on the same cached posts (issue point 5).
    const tokenReads = await measureTokenReads(server.url, paths.posts, await credentialsOf(server.url, data), {
      duration: DURATION,
      warmSeconds: WARM_SECONDS,
      connections: CONNECTIONS,
    })
    report(tokenReads.jwt)
    report(tokenReads.token)
    await settle()

    const login = {
      url: `${server.url}/login`,
      method: 'POST' as const,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: data.email, password: data.password }),
    }
    report(
      withRatio(
        await measure(`login (${LOGINS_AT_ONCE} at once)`, { ...login, connections: LOGINS_AT_ONCE }),
        ping.ours,
      ),
    )
    await drainLogins()
    const [duringLogins, logins] = await Promise.all([
      measure(`getPost, cached, during logins`, { url: `${server.url}${postPath}` }),
      measure(`  the logins meanwhile`, { ...login, connections: LOGINS_AT_ONCE }),
    ])
    report(withRatio(duringLogins, ping.ours))
    report(withRatio(logins, ping.ours))
    await drainLogins()
    // The cheapest route while bcrypt runs: hashing must not stall the event loop.
    const [pingDuringLogins] = await Promise.all([
      measure('GET /ping during logins', { url: `${server.url}/ping` }),
      measure(`  the logins meanwhile`, { ...login, connections: LOGINS_AT_ONCE }),
    ])
    report(withRatio(pingDuringLogins, ping.ours))
    await drainLogins()
    return { tokenReads, duringLogins, logins, pingDuringLogins }
  }
  const loginFigures = READS_ONLY ? null : await underLogins(server)
  await closeCounters()
  await server.stop()

  // The pg peer reads a copy of the database as seeded, made while nothing is connected to it, so
  // that the original's statistics count the service's reads alone.
  const pgPeer = database.copy ? await startPeer({ databaseUrl: await database.copy(), poolMax: POOL_MAX }) : null
  if (pgPeer) peers.push(pgPeer)
  // POST_CACHE_MAX_ENTRIES=0 turns off the post, slug, list and feed caches (src/services/caches.ts).
  const uncachedRounds: Awaited<ReturnType<typeof uncachedFigures>>[] = []
  for (let round = 1; round <= ROUNDS; round++) {
    if (round > 1) {
      await closeCounters()
      await server.stop()
    }
    server = await startServer({ ...readEnv, POST_CACHE_MAX_ENTRIES: '0' })
    const uncachedWork = equalWork(await counterFor(database.env.DATABASE_URL))
    uncachedRounds.push(
      await uncachedFigures(uncachedWork, server.url, pgPeer, paths, CONNECTIONS, { feed: cached.feed.ours }),
    )
    fairness.push(...uncachedWork.fairness)
  }
  const uncached = mediansOf(uncachedRounds)
  for (const compared of Object.values(uncached)) reportCompared(compared)
  await closeCounters()
  console.log(
    `\nequal work (${kind}): the same answers on both sides; ${kind === 'postgres' ? "the service's reads of its tables, per request sent" : 'reads n/a (embedded database: answers only)'}`,
  )
  console.log(formatFairness(fairness))
  if (pgPeer) {
    // What the comparisons before equal work amounted to: cached pages, or one URL or id read by
    // every connection at once with the cache off (loads shared), against pages built in SQL. The
    // first page was compared on /posts?limit=20 alone: the peer's figure on it, as then.
    const oneUrl = await measure('  bare node:http + pg, /posts?limit=20 alone', {
      url: `${pgPeer.url}/posts?limit=20`,
    })
    report(oneUrl)
    console.log('\nunequal work, as compared before (for the record, no verdict), against bare node:http + pg:')
    for (const [name, ours, peerPaths, peer] of [
      [`listPosts first pages, cached (limits 1-${SPREAD})`, cached.first.ours, '/posts?limit=20 alone', oneUrl],
      ['listPosts /posts?limit=20 alone, cache off', uncached.firstMerged.ours, '/posts?limit=20 alone', oneUrl],
      ['listPosts behind a cursor, cached', cached.cursor.ours, 'the same spread', uncached.cursor.peer],
      ['listPosts one category, cached', cached.category.ours, 'the same spread', uncached.category.peer],
      ['getPost one id, cache off', uncached.postMerged.ours, 'the spread of ids', uncached.post.peer],
    ] as const)
      console.log(`  ${name.padEnd(44)} ${withRatio(ours, peer!).ratio!.toFixed(2)}× the peer on ${peerPaths}`)
  }
  // A target is met only by runs in which every request got a 2xx: fast 4xx/5xx or dropped
  // connections would flatter the figure. A ratio also counts its peer's run. A compared figure
  // meets its target only if it did the same work as what it is compared with (equal-work.ts).
  const checked = (runs: (Figure | undefined)[], ok: boolean, compared: Compared[] = []) => ({
    runs: runs.filter((run) => run !== undefined),
    met:
      ok &&
      runs.every((run) => run === undefined || run.non2xx + run.errors === 0) &&
      compared.every((figure) => figure.fairness.problems.length === 0),
  })
  const againstPeer = (pair: MedianCompared, ratio: number, p99Factor?: number) =>
    pair.peer === undefined
      ? null
      : checked(
          pair.runs,
          pair.ours.ratio! >= ratio && (p99Factor === undefined || pair.ours.p99Ms < p99Factor * pair.peer.p99Ms),
          [pair],
        )
  const postgres = kind === 'postgres'
  const readVerdicts = {
    'every compared figure gave the same answers as its peer (200 without one)': {
      runs: [],
      met: fairness.every((check) => check.answers.differences.length === 0),
    },
    // Counted on PostgreSQL only: on the embedded database, n/a rather than met with nothing counted.
    'every compared figure read the database as it claims (reads counted per request)': postgres
      ? { runs: [], met: fairness.every((check) => check.sql !== null && check.sqlProblems.length === 0) }
      : null,
    'GET /ping >= 0.7 x bare node:http': againstPeer(ping, 0.7),
    'getPost cached >= 0.6 x bare node:http': againstPeer(cached.post, 0.6),
    // Issue 37's cached list figure: pages of 20 (the first pages average 20 over limits 1-40).
    'listPosts first page, cached >= 0.6 x bare node:http': againstPeer(cached.first, 0.6),
    'listPosts behind a cursor (limit 20), cached >= 0.6 x bare node:http': againstPeer(cached.cursor, 0.6),
    // A cached feed costs a generation read (as a cached list page does), an uncached one a list
    // query and the rendering: the cache must pay for itself, measured in one run.
    'getFeed cached >= 1.5 x getFeed cache off': checked(
      [cached.feed.ours, uncached.feed.ours],
      cached.feed.ours.requestsPerSecond >= 1.5 * uncached.feed.ours.requestsPerSecond,
      [cached.feed, uncached.feed],
    ),
    // The same cache behind a slug → id map: as fast, within the noise of two runs on two cores.
    'getPostBySlug cached >= 0.9 x getPost cached': checked(
      [cached.bySlug.ours, cached.post.ours],
      cached.bySlug.ours.ratio! >= 0.9,
      [cached.bySlug, cached.post],
    ),
    // Issue 17's list targets, on the equal-work figures: pages built from the database on both sides.
    'listPosts first page, cache off >= 0.6 x bare node:http + pg, p99 < 2 x its': againstPeer(uncached.first, 0.6, 2),
    'listPosts behind a cursor, cache off >= 0.6 x bare node:http + pg, p99 < 2 x its': againstPeer(
      uncached.cursor,
      0.6,
      2,
    ),
    'listPosts one category, cache off >= 0.6 x bare node:http + pg, p99 < 2 x its': againstPeer(
      uncached.category,
      0.6,
      2,
    ),
    'getPost cache off >= 0.6 x bare node:http + pg': againstPeer(uncached.post, 0.6),
    [`server RSS idle <= ${postgres ? 200 : 450} MiB`]: { runs: [], met: idleMemory.rssMiB <= (postgres ? 200 : 450) },
    [`server peak RSS under the read load <= ${postgres ? 300 : 450} MiB`]: {
      runs: [],
      met: peakMemory <= (postgres ? 300 : 450),
    },
  }
  const memory = (memory: Memory) => `RSS ${memory.rssMiB} MiB, heap ${memory.heapUsedMiB} MiB`
  console.log(`\nserver memory (${kind}):`)
  const rounds = (values: number[]) => (values.length < 2 ? '' : ` (median of ${values.join(', ')})`)
  console.log(`  idle after start-up      ${memory(idleMemory)}${rounds(idle.map((m) => m.rssMiB))}`)
  console.log(`  peak under the read load RSS ${peakMemory} MiB${rounds(peakUnderReads)}`)
  console.log(`  after the read load      ${memory(afterMemory)}${rounds(afterReads.map((m) => m.rssMiB))}`)
  if (READS_ONLY) printVerdicts(readVerdicts)
  else {
    const { tokenReads, duringLogins, pingDuringLogins } = loginFigures!
    // Abuse, against the idle /ping of the same process.
    const idlePing = await measure('GET /ping (cache off, idle)', { url: `${server.url}/ping` })
    report(idlePing)
    const abuse = await measureAbuse(
      { url: server.url, pid: server.child.pid! },
      await prepareAttacks(server.url),
      DURATION,
      CONNECTIONS,
    )
    report(withRatio(abuse.ping, idlePing))
    for (const [attack, answers] of Object.entries(abuse.answers)) {
      console.log(
        `  ${attack}: ${Object.entries(answers)
          .map(([answer, count]) => `${count}× ${answer}`)
          .join(', ')}`,
      )
    }
    console.log(`\nserver memory under abuse (${kind}):`)
    console.log(`  before ${memory(abuse.before)}; peak RSS ${abuse.peakRssMiB} MiB; after ${memory(abuse.after)}`)
    // An innocent user's write while accounts flood the renderer (scripts/bench/render-flood.ts).
    const renderFloods: RenderFloodResult[] = []
    for (const body of Object.keys(FLOOD_BODIES) as FloodBody[]) {
      renderFloods.push(await measureRenderFlood(server.url, body))
      console.log(`\nrender flood (${kind}):\n${formatRenderFlood(renderFloods.at(-1)!)}`)
    }
    // Last on this server: the heavy posts stay on its front page.
    const listAbuse = await measureListAbuse({ url: server.url, pid: server.child.pid! }, DURATION)
    console.log(describeListAbuse(listAbuse))
    await server.stop()

    // Webhooks, to a receiver in this process on loopback.
    server = await startServer({ ...env, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' })
    await autocannon({ url: `${server.url}/ping`, duration: 2, connections: CONNECTIONS })
    const tokenOf = async (email: string, password: string) =>
      (
        (await (
          await fetch(`${server!.url}/login`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ email, password }),
          })
        ).json()) as { data: { accessToken: string } }
      ).data.accessToken
    const serverUrl = server.url
    await fetch(`${serverUrl}${postPath}`) // into the cache
    const webhooks = await measureWebhooks({
      serverUrl,
      serverPid: server.child.pid!,
      adminToken: await tokenOf(BENCH_ADMIN.ADMIN_EMAIL, BENCH_ADMIN.ADMIN_PASSWORD),
      userToken: await tokenOf(data.email, data.password),
      commentPostId: data.postIds[0]!,
      measureReads: (name, until) =>
        until
          ? measureUntil(name, { url: `${serverUrl}${postPath}`, connections: CONNECTIONS }, until)
          : measure(name, { url: `${serverUrl}${postPath}` }),
    })
    const burstRatio = withRatio(webhooks.burst.during, webhooks.burst.idle)
    report(webhooks.burst.idle)
    report(withRatio(webhooks.burst.writesOnly, webhooks.burst.idle))
    report(burstRatio)
    console.log(
      `webhook delivery, event to receiver: p50 ${webhooks.latency.p50Ms} ms, p99 ${webhooks.latency.p99Ms} ms, max ${webhooks.latency.maxMs} ms (${webhooks.latency.events} events, one at a time)`,
    )
    console.log(
      `  ${webhooks.burst.events} comments alone (no reads, endpoint paused): ${webhooks.burst.writes.perSecond} writes/s, server CPU ${webhooks.burst.writes.serverCpuMsPerWrite} ms per write`,
    )
    console.log(
      `  a burst of ${webhooks.burst.events} events: made and delivered in ${webhooks.burst.deliveredInMs} ms; getPost p99 ${webhooks.burst.during.p99Ms} ms against ${webhooks.burst.idle.p99Ms} ms idle and ${webhooks.burst.writesOnly.p99Ms} ms during the same writes, paused`,
    )
    await server.stop()

    // Media on each storage driver: uploads, then getImage against the same bytes sent bare.
    const media: MediaFigures[] = []
    const s3 = await startS3Process()
    try {
      for (const driver of ['database', 's3'] as const) {
        server = await startServer({ ...env, ...MEDIA_BENCH_ENV, ...(driver === 's3' ? s3.env : {}) })
        media.push(
          await measureMedia({
            driver,
            serverUrl: server.url,
            serverPid: server.child.pid!,
            duration: DURATION,
            connections: CONNECTIONS,
          }),
        )
        console.log(`
${describeMedia(media.at(-1)!)}`)
        report(media.at(-1)!.getImage.peer)
        report(media.at(-1)!.getImage.ours)
        await server.stop()
      }
    } finally {
      await s3.stop()
    }

    // Post revisions: two servers of their own (on, off), each on a scratch database of its own.
    const revisions = await measureRevisions(process.env.DATABASE_URL)
    console.log(`\nrevisions (${kind}):\n${formatRevisions(revisions)}`)

    // Writes against a bare node:http + pg peer running the same statements (PostgreSQL only): a
    // server and a scratch database of their own, the peer on a copy of it.
    const writes =
      kind === 'postgres'
        ? await measureWrites(process.env.DATABASE_URL!, {
            duration: DURATION,
            warmSeconds: WARM_SECONDS,
            connections: CONNECTIONS,
          })
        : null
    if (writes) {
      console.log(`\n${describeWrites(writes)}`)
      for (const figure of [...writes.figures, ...writes.webhookFigures]) figures.push(figure.peer, figure.ours)
    } else console.log('\nwrites against a bare peer: n/a on the embedded database (the peer runs on PostgreSQL)')

    const verdicts = {
      ...readVerdicts,
      [TOKEN_READS_TARGET]: checked([tokenReads.jwt, tokenReads.token], tokenReadsMet(tokenReads)),
      'getPost p99 < 50 ms during 20 concurrent logins': checked([duringLogins], duringLogins.p99Ms < 50),
      'GET /ping p99 < 50 ms during 20 concurrent logins': checked([pingDuringLogins], pingDuringLogins.p99Ms < 50),
      'GET /ping p99 < 100 ms during abuse (12 hostile uploads, pathological bodies)': checked(
        [abuse.ping],
        abuse.ping.p99Ms < 100,
      ),
      // The burst's writes and their deliveries both run during the reads it is measured by.
      'getPost p99 during a burst of 1,000 webhook events <= 1.5 x idle': checked(
        [webhooks.burst.idle, webhooks.burst.during],
        webhooks.burst.during.p99Ms <= 1.5 * webhooks.burst.idle.p99Ms,
      ),
      // What delivering adds: the same writes with the endpoint paused queue no event.
      'getPost p99 during the burst <= 1.5 x during the same writes, paused': checked(
        [webhooks.burst.writesOnly, webhooks.burst.during],
        webhooks.burst.during.p99Ms <= 1.5 * webhooks.burst.writesOnly.p99Ms,
      ),
      // The embedded database lives in the server's own memory (hundreds of MiB before any abuse).
      'server peak RSS < 500 MiB during abuse (PostgreSQL)': postgres
        ? { runs: [], met: abuse.peakRssMiB < 500 }
        : null,
      ...Object.fromEntries(
        renderFloods.map((flood) => [
          `createPost p50 during a render flood (3 accounts × 8 ${flood.body}) <= 2 x idle`,
          { runs: [], met: flood.ratio <= 2 },
        ]),
      ),
      [LIST_ABUSE_TARGET]: { runs: [], met: listAbuseMet(listAbuse) },
      [REVISIONS_TARGET]: { runs: [], met: revisionsMet(revisions) },
      // Every request 2xx on both sides, the same answers and the same rows and scans per write (writes.ts).
      [WRITES_TARGET]: writes
        ? checked(
            writes.figures.flatMap((figure) => [figure.peer, figure.ours]),
            writesMet(writes),
          )
        : null,
    }
    const targets = printVerdicts(verdicts)
    mkdirSync('bench-results', { recursive: true })
    const file = join('bench-results', `bench-${kind}-${new Date().toISOString().replaceAll(':', '-')}.json`)
    writeFileSync(
      file,
      `${JSON.stringify(
        {
          kind,
          durationSeconds: DURATION,
          connections: CONNECTIONS,
          cores: cpus().length,
          node: process.version,
          figures,
          memory: {
            idle: idleMemory,
            peakUnderReadsRssMiB: peakMemory,
            afterReads: afterMemory,
            rounds: { idle, peakUnderReads, afterReads },
          },
          abuse,
          renderFloods,
          listAbuse,
          webhooks,
          media,
          revisions,
          writes,
          tokenReads,
          fairness,
          targets,
        },
        null,
        2,
      )}\n`,
    )
    console.log(`\nresults written to ${file}`)
  }
} finally {
  await Promise.all(peers.map((peer) => peer.stop()))
  await server?.stop()
  await database.drop()
}
