// `npm run bench`: starts the service (embedded database, or PostgreSQL when DATABASE_URL is set,
// in a database of its own that is dropped afterwards), seeds it over HTTP, and measures with
// autocannon in one run: GET /ping (the baseline), getPost cached, listPosts, login, getPost while
// logins run, /ping while logins run, then, on a restart with the cache off, /ping again, getPost uncached and
// /ping under abuse (hostile uploads and pathological bodies, scripts/bench/abuse.ts) with the
// server's memory before, during and after. Figures are
// ratios to the /ping of the same server process, since this machine's absolute speed varies.
// Results are printed and written to bench-results/.
import { mkdirSync, writeFileSync } from 'node:fs'
import { cpus } from 'node:os'
import { join } from 'node:path'
import autocannon from 'autocannon'
import { measureAbuse, prepareAttacks } from './bench/abuse.ts'
import { scratchDatabase } from './bench/database.ts'
import { formatFigure, measure as measureWith, withRatio, type Figure } from './bench/measure.ts'
import { seed } from './bench/seed.ts'
import { startServer } from './bench/server.ts'

const DURATION = Number(process.env.BENCH_DURATION_SECONDS ?? 10)
const CONNECTIONS = 20
const LOGINS_AT_ONCE = 20

/**
 * autocannon stops at the deadline, but logins it abandoned are still queued for bcrypt on the
 * server: wait for them, so the next figure measures a server doing only what it is asked.
 */
const drainLogins = () => new Promise((resolve) => setTimeout(resolve, 8_000))

const measure = (name: string, options: autocannon.Options) =>
  measureWith(name, { connections: CONNECTIONS, duration: DURATION, ...options })

const database = await scratchDatabase(process.env.DATABASE_URL)
const kind = database.kind
// Production costs (bcrypt 12), limits out of the way: the benchmark logs in thousands of times.
const env = {
  ...database.env,
  BCRYPT_COST: '12',
  LOGIN_LIMIT_PER_ACCOUNT: '100000',
  LOGIN_LIMIT_PER_ACCOUNT_ADDRESS: '100000',
  LOGIN_LIMIT_PER_ADDRESS: '1000000',
  REGISTER_LIMIT_PER_ADDRESS: '1000000',
}

const figures: Figure[] = []
const report = (figure: Figure) => {
  figures.push(figure)
  console.log(formatFigure(figure))
}

try {
  console.log(
    `bench: ${kind} database, ${DURATION} s per figure, ${CONNECTIONS} connections, ${cpus().length} cores, Node ${process.version}`,
  )
  let server = await startServer(env)
  const data = await seed(server.url, 200)
  const postUrl = `${server.url}/posts/${data.postIds[100]}`
  const login = {
    url: `${server.url}/login`,
    method: 'POST' as const,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: data.email, password: data.password }),
  }

  await autocannon({ url: `${server.url}/ping`, duration: 2, connections: CONNECTIONS }) // warm-up
  const baseline = await measure('GET /ping (baseline)', { url: `${server.url}/ping` })
  report({ ...baseline, ratio: 1 })
  const cached = withRatio(await measure('getPost, cached', { url: postUrl }), baseline)
  report(cached)
  report(withRatio(await measure('listPosts (limit 20)', { url: `${server.url}/posts?limit=20` }), baseline))
  report(
    withRatio(await measure(`login (${LOGINS_AT_ONCE} at once)`, { ...login, connections: LOGINS_AT_ONCE }), baseline),
  )
  await drainLogins()
  const [duringLogins, logins] = await Promise.all([
    measure(`getPost, cached, during logins`, { url: postUrl }),
    measure(`  the logins meanwhile`, { ...login, connections: LOGINS_AT_ONCE }),
  ])
  report(withRatio(duringLogins, baseline))
  report(withRatio(logins, baseline))
  await drainLogins()
  // The cheapest route while bcrypt runs: hashing must not stall the event loop.
  const [pingDuringLogins] = await Promise.all([
    measure('GET /ping during logins', { url: `${server.url}/ping` }),
    measure(`  the logins meanwhile`, { ...login, connections: LOGINS_AT_ONCE }),
  ])
  report(withRatio(pingDuringLogins, baseline))
  await drainLogins()
  await server.stop()

  server = await startServer({ ...env, POST_CACHE_MAX_ENTRIES: '0' })
  await autocannon({ url: `${server.url}/ping`, duration: 2, connections: CONNECTIONS })
  const baselineOff = await measure('GET /ping (baseline, cache off)', { url: `${server.url}/ping` })
  report({ ...baselineOff, ratio: 1 })
  const uncached = withRatio(
    await measure('getPost, cache off', { url: postUrl.replace(/^http:\/\/[^/]+/, server.url) }),
    baselineOff,
  )
  report(uncached)
  // Abuse, on the same process as its idle /ping just above.
  const abuse = await measureAbuse(
    { url: server.url, pid: server.child.pid! },
    await prepareAttacks(server.url),
    DURATION,
    CONNECTIONS,
  )
  report(withRatio(abuse.ping, baselineOff))
  console.log(
    `  /ping p99: idle ${baselineOff.p99Ms} ms, during abuse ${abuse.ping.p99Ms} ms; req/s: idle ${baselineOff.requestsPerSecond}, during abuse ${abuse.ping.requestsPerSecond}`,
  )
  for (const [attack, answers] of Object.entries(abuse.answers)) {
    console.log(
      `  ${attack}: ${Object.entries(answers)
        .map(([answer, count]) => `${count}× ${answer}`)
        .join(', ')}`,
    )
  }
  console.log(
    `  server memory: before RSS ${abuse.before.rssMiB} MiB, heap ${abuse.before.heapUsedMiB} MiB; peak RSS ${abuse.peakRssMiB} MiB (+${Math.round((abuse.peakRssMiB - abuse.before.rssMiB) * 10) / 10}); after RSS ${abuse.after.rssMiB} MiB, heap ${abuse.after.heapUsedMiB} MiB`,
  )
  await server.stop()

  // A target is met only by runs in which every request got a 2xx: fast 4xx/5xx or dropped
  // connections would flatter the figure. A ratio also counts its baseline's run.
  const checked = (runs: Figure[], ok: boolean) => ({
    runs,
    met: ok && runs.every((run) => run.non2xx + run.errors === 0),
  })
  const verdicts = {
    'getPost cached >= 0.8 x baseline': checked([cached, baseline], cached.ratio! >= 0.8),
    'getPost cache off >= 0.25 x baseline (PostgreSQL)':
      kind === 'postgres' ? checked([uncached, baselineOff], uncached.ratio! >= 0.25) : null,
    'getPost p99 < 50 ms during 20 concurrent logins': checked([duringLogins], duringLogins.p99Ms < 50),
    'GET /ping p99 < 50 ms during 20 concurrent logins': checked([pingDuringLogins], pingDuringLogins.p99Ms < 50),
    'GET /ping p99 < 100 ms during abuse (12 hostile uploads, pathological bodies)': checked(
      [abuse.ping],
      abuse.ping.p99Ms < 100,
    ),
    // The embedded database lives in the server's own memory (hundreds of MiB before any abuse).
    'server peak RSS < 500 MiB during abuse (PostgreSQL)':
      kind === 'postgres' ? { runs: [], met: abuse.peakRssMiB < 500 } : null,
  }
  console.log('\ntargets:')
  for (const [target, verdict] of Object.entries(verdicts)) {
    const failures =
      verdict?.runs.map((run) => `${run.name.trim()}: ${run.non2xx} non-2xx, ${run.errors} errors`).join('; ') ?? ''
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
    `${JSON.stringify({ kind, durationSeconds: DURATION, connections: CONNECTIONS, cores: cpus().length, node: process.version, figures, abuse, targets }, null, 2)}\n`,
  )
  console.log(`\nresults written to ${file}`)
} finally {
  await database.drop()
}
