// `npm run bench`: starts the service (embedded database, or PostgreSQL when DATABASE_URL is set,
// in a database of its own that is dropped afterwards), seeds it over HTTP (60 posts of about 2 KB
// in 5 categories) and measures with autocannon in one run, each read figure right after its bare
// peer (scripts/bench/peer-server.ts):
// - GET /ping, getPost cached and getFeed cached, against a bare node:http server sending the very
//   bytes our server sent for them;
// - listPosts (first page, a page behind a cursor, a category) and getPost with the cache off,
//   against a bare node:http + pg server answering each with one SQL query (PostgreSQL only);
//   getFeed with the cache off, against getFeed cached;
// - the server's RSS and heap idle after start-up, at peak under the read load, and after it;
// - getPostBySlug on getPost's post, cached and with the cache off, against getPost's figures;
// - login, and getPost and /ping while logins run; then /ping under abuse (hostile uploads and
//   pathological bodies, scripts/bench/abuse.ts) with the server's memory before, during and after;
// - an innocent user's createPost while three accounts flood the renderer with 100 000-character
//   tables, then with 4 136-character tables 1 000 columns wide, against its latency idle
//   (scripts/bench/render-flood.ts);
// - the list pages after one account published 100 heavy posts, their bytes and the server's
//   RSS while ten anonymous readers read them (scripts/bench/list-abuse.ts);
// - webhook delivery latency (event to receiver) p50 and p99, and getPost cached while a burst of
//   1,000 events is made and delivered, against its figure idle and during the same writes with
//   the endpoint paused; and the server's CPU time per comment write, with no reads (scripts/bench/webhooks.ts).
// Results are printed and written to bench-results/.
import { mkdirSync, writeFileSync } from 'node:fs'
import { isDeepStrictEqual } from 'node:util'
import { cpus } from 'node:os'
import { join } from 'node:path'
import autocannon from 'autocannon'
import { measureAbuse, prepareAttacks } from './bench/abuse.ts'
import { describeListAbuse, LIST_ABUSE_TARGET, listAbuseMet, measureListAbuse } from './bench/list-abuse.ts'
import { scratchDatabase } from './bench/database.ts'
import { formatFigure, measure as measureWith, withRatio, type Figure } from './bench/measure.ts'
import { readMemory, watchPeakRss, type Memory } from './bench/memory.ts'
import {
  FLOOD_BODIES,
  formatRenderFlood,
  measureRenderFlood,
  type FloodBody,
  type RenderFloodResult,
} from './bench/render-flood.ts'
import { captureAnswer, startPeer, type Peer } from './bench/peers.ts'
import { BENCH_ADMIN, seed } from './bench/seed.ts'
import { startServer, type RunningServer } from './bench/server.ts'
import { measureWebhooks } from './bench/webhooks.ts'

const DURATION = Number(process.env.BENCH_DURATION_SECONDS ?? 10)
const CONNECTIONS = 20
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
 * whose bcrypt thread the password pool lets go after 30 s without work (src/auth/passwords.ts).
 */
const untilIdle = () => new Promise((resolve) => setTimeout(resolve, 35_000))

const measure = (name: string, options: autocannon.Options) =>
  measureWith(name, { connections: CONNECTIONS, duration: DURATION, ...options })

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
}

const figures: Figure[] = []
const report = (figure: Figure) => {
  figures.push(figure)
  console.log(formatFigure(figure))
}

/** The peer's figure, then ours on the same path; ours carries the ratio to the peer's. */
async function versusPeer(name: string, peer: Peer, ours: RunningServer, path: string) {
  const peerFigure = await measure(`  bare peer`, { url: `${peer.url}${path}` })
  const ourFigure = withRatio(await measure(name, { url: `${ours.url}${path}` }), peerFigure)
  report(peerFigure)
  report(ourFigure)
  return { peer: peerFigure, ours: ourFigure }
}

const dataOf = async (url: string) => ((await (await fetch(url)).json()) as { data: unknown; meta: unknown }).data
const pageOf = async (url: string) =>
  ((await (await fetch(url)).json()) as { meta: { page: { nextCursor: string | null } } }).meta.page

const peers: Peer[] = []
let server: RunningServer | undefined
try {
  console.log(
    `bench: ${kind} database, ${DURATION} s per figure, ${CONNECTIONS} connections, ${cpus().length} cores, Node ${process.version}`,
  )
  server = await startServer(env)
  await untilIdle()
  const idle = await readMemory(server.child.pid!, server.url)
  const data = await seed(server.url, POSTS)
  const postPath = `/posts/${data.postIds[POSTS / 2]}`
  const slugPath = `/posts/by-slug/${((await dataOf(`${server.url}${postPath}`)) as { slug: string }).slug}`
  const listPath = '/posts?limit=20'
  const cursorPath = `/posts?limit=20&cursor=${(await pageOf(`${server.url}${listPath}`)).nextCursor}`
  const categoryPath = `/posts?limit=20&category=${data.categorySlugs[2]}`
  const feedPath = '/feed.atom'
  await fetch(`${server.url}${postPath}`) // into the cache
  await fetch(`${server.url}${feedPath}`)
  const bytesPeer = await startPeer({
    fixed: {
      '/ping': await captureAnswer(`${server.url}/ping`),
      [postPath]: await captureAnswer(`${server.url}${postPath}`),
      // About 55 KB: with the others, PEER_FIXED stays under the 128 KiB one environment variable may hold.
      [feedPath]: await captureAnswer(`${server.url}${feedPath}`),
    },
  })
  peers.push(bytesPeer)
  const pgPeer =
    kind === 'postgres' ? await startPeer({ databaseUrl: database.env.DATABASE_URL!, poolMax: POOL_MAX }) : null
  if (pgPeer) peers.push(pgPeer)
  if (pgPeer) {
    // The peer must do the same work: the same posts, to the field.
    for (const path of [listPath, cursorPath, categoryPath, postPath]) {
      const same = isDeepStrictEqual(await dataOf(`${pgPeer.url}${path}`), await dataOf(`${server.url}${path}`))
      if (!same) throw new Error(`the pg peer's answer to ${path} differs from the server's`)
    }
  }

  await autocannon({ url: `${server.url}/ping`, duration: 2, connections: CONNECTIONS }) // warm-up
  const readLoad = watchPeakRss(server.child.pid!)
  const ping = await versusPeer('GET /ping', bytesPeer, server, '/ping')
  const cached = await versusPeer('getPost, cached', bytesPeer, server, postPath)
  // Cached too, but each read checks the lists' generation (one one-row query), as listPosts does.
  const feed = await versusPeer('getFeed, cached', bytesPeer, server, feedPath)
  await fetch(`${server.url}${slugPath}`) // its slug into the slug map
  const bySlugCached = withRatio(
    await measure('getPostBySlug, cached', { url: `${server.url}${slugPath}` }),
    cached.ours,
  )
  report(bySlugCached)
  const lists = pgPeer
    ? {
        first: await versusPeer('listPosts, first page', pgPeer, server, listPath),
        cursor: await versusPeer('listPosts, behind a cursor', pgPeer, server, cursorPath),
        category: await versusPeer('listPosts, one category', pgPeer, server, categoryPath),
      }
    : {
        first: { ours: await measure('listPosts, first page', { url: `${server.url}${listPath}` }) },
        cursor: { ours: await measure('listPosts, behind a cursor', { url: `${server.url}${cursorPath}` }) },
        category: { ours: await measure('listPosts, one category', { url: `${server.url}${categoryPath}` }) },
      }
  if (!pgPeer) for (const figure of Object.values(lists)) report(figure.ours)
  const peakUnderReads = readLoad.stop()
  await settle()
  const afterReads = await readMemory(server.child.pid!, server.url)

  const login = {
    url: `${server.url}/login`,
    method: 'POST' as const,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: data.email, password: data.password }),
  }
  report(
    withRatio(await measure(`login (${LOGINS_AT_ONCE} at once)`, { ...login, connections: LOGINS_AT_ONCE }), ping.ours),
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
  await server.stop()

  server = await startServer({ ...env, POST_CACHE_MAX_ENTRIES: '0' })
  await autocannon({ url: `${server.url}/ping`, duration: 2, connections: CONNECTIONS })
  const uncached = pgPeer
    ? await versusPeer('getPost, cache off', pgPeer, server, postPath)
    : { ours: await measure('getPost, cache off', { url: `${server.url}${postPath}` }) }
  if (!pgPeer) report(uncached.ours)
  const feedUncached = withRatio(await measure('getFeed, cache off', { url: `${server.url}${feedPath}` }), feed.ours)
  report(feedUncached)
  const bySlugUncached = withRatio(
    await measure('getPostBySlug, cache off', { url: `${server.url}${slugPath}` }),
    uncached.ours,
  )
  report(bySlugUncached)
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
  const memory = (memory: Memory) => `RSS ${memory.rssMiB} MiB, heap ${memory.heapUsedMiB} MiB`
  console.log(`\nserver memory (${kind}):`)
  console.log(`  idle after start-up      ${memory(idle)}`)
  console.log(`  peak under the read load RSS ${peakUnderReads} MiB`)
  console.log(`  after the read load      ${memory(afterReads)}`)
  console.log(`  abuse: before ${memory(abuse.before)}; peak RSS ${abuse.peakRssMiB} MiB; after ${memory(abuse.after)}`)
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
    measureReads: (name) => measure(name, { url: `${serverUrl}${postPath}` }),
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

  // A target is met only by runs in which every request got a 2xx: fast 4xx/5xx or dropped
  // connections would flatter the figure. A ratio also counts its peer's run.
  type Pair = { peer?: Figure; ours: Figure }
  const checked = (runs: (Figure | undefined)[], ok: boolean) => ({
    runs: runs.filter((run) => run !== undefined),
    met: ok && runs.every((run) => run === undefined || run.non2xx + run.errors === 0),
  })
  const againstPeer = (pair: Pair, ratio: number, p99Factor?: number) =>
    pair.peer === undefined
      ? null
      : checked(
          [pair.peer, pair.ours],
          pair.ours.ratio! >= ratio && (p99Factor === undefined || pair.ours.p99Ms < p99Factor * pair.peer.p99Ms),
        )
  const postgres = kind === 'postgres'
  const verdicts = {
    'GET /ping >= 0.7 x bare node:http': againstPeer(ping, 0.7),
    'getPost cached >= 0.6 x bare node:http': againstPeer(cached, 0.6),
    // A cached feed costs a generation read (as a cached list page does), an uncached one a list
    // query and the rendering: the cache must pay for itself, measured in one run.
    'getFeed cached >= 1.5 x getFeed cache off': checked(
      [feed.ours, feedUncached],
      feed.ours.requestsPerSecond >= 1.5 * feedUncached.requestsPerSecond,
    ),
    // The same cache behind a slug → id map: as fast, within the noise of two runs on two cores.
    'getPostBySlug cached >= 0.9 x getPost cached': checked([bySlugCached, cached.ours], bySlugCached.ratio! >= 0.9),
    'listPosts first page >= 0.6 x bare node:http + pg, p99 < 2 x its': againstPeer(lists.first, 0.6, 2),
    'listPosts behind a cursor >= 0.6 x bare node:http + pg, p99 < 2 x its': againstPeer(lists.cursor, 0.6, 2),
    'listPosts one category >= 0.6 x bare node:http + pg, p99 < 2 x its': againstPeer(lists.category, 0.6, 2),
    'getPost cache off >= 1 x bare node:http + pg': againstPeer(uncached, 1),
    [`server RSS idle <= ${postgres ? 200 : 450} MiB`]: { runs: [], met: idle.rssMiB <= (postgres ? 200 : 450) },
    [`server peak RSS under the read load <= ${postgres ? 300 : 450} MiB`]: {
      runs: [],
      met: peakUnderReads <= (postgres ? 300 : 450),
    },
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
    'server peak RSS < 500 MiB during abuse (PostgreSQL)': postgres ? { runs: [], met: abuse.peakRssMiB < 500 } : null,
    ...Object.fromEntries(
      renderFloods.map((flood) => [
        `createPost p50 during a render flood (3 accounts × 8 ${flood.body}) <= 2 x idle`,
        { runs: [], met: flood.ratio <= 2 },
      ]),
    ),
    [LIST_ABUSE_TARGET]: { runs: [], met: listAbuseMet(listAbuse) },
  }
  console.log('\ntargets:')
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
  const targets = Object.fromEntries(
    Object.entries(verdicts).map(([target, verdict]) => [target, verdict && verdict.met]),
  )
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
        memory: { idle, peakUnderReadsRssMiB: peakUnderReads, afterReads },
        abuse,
        renderFloods,
        listAbuse,
        webhooks,
        targets,
      },
      null,
      2,
    )}\n`,
  )
  console.log(`\nresults written to ${file}`)
} finally {
  await Promise.all(peers.map((peer) => peer.stop()))
  await server?.stop()
  await database.drop()
}
