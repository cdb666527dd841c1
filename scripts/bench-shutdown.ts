// Shutdown under load, as a rolling restart: `npm run bench:shutdown`. Two instances of
// src/server.ts on one PostgreSQL database (a scratch database, dropped at the end), behind a
// load balancer in this process (scripts/bench/balancer.ts: active health checks on each
// instance's readiness, round-robin, retries off), loaded from keep-alive client loops with reads
// and writes (scripts/bench/shutdown-load.ts). After the warm-up: SIGTERM to A, its exit, its
// replacement A' started and in rotation; then the same for B; the load runs throughout and a
// while after. Reports every request's outcome by phase, and each instance's exit code and time
// from SIGTERM to exit; exits 1 on any failed request (a socket error, the balancer's 502/503, any
// 5xx), any unexpected status or any exit code other than 0.
//   BENCH_CONNECTIONS (32), BENCH_WARMUP_MS (3000), BENCH_AFTER_MS (2000), BENCH_PROBE_MS (250),
//   BENCH_PROBE_TIMEOUT_MS (2000), BENCH_DRAIN_PERIOD_MS (2000; 0: the public port closes at
//   SIGTERM, as before the drain);
//   DATABASE_URL: the PostgreSQL server to make the scratch database on (127.0.0.1:5432 by default).
// The instances run with the write budget lifted (BENCH_WRITE_BUDGET) and comment moderation and
// flood control off (BENCH_COMMENTS, scripts/bench/seed.ts): each client comments every few requests.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { startBalancer } from './bench/balancer.ts'
import { scratchPostgres } from './bench/database.ts'
import { replace, startInstance, stopAll, type Instance, type Restart } from './bench/fleet.ts'
import { BENCH_COMMENTS, BENCH_WRITE_BUDGET } from './bench/seed.ts'
import { signUp, startLoad } from './bench/shutdown-load.ts'

const started = Date.now()
const setting = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? fallback)
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a whole number, not ${process.env[name]}`)
  return value
}
const connections = setting('BENCH_CONNECTIONS', 32)
const warmupMs = setting('BENCH_WARMUP_MS', 3000)
const afterMs = setting('BENCH_AFTER_MS', 2000)
const probeIntervalMs = setting('BENCH_PROBE_MS', 250)
const probeTimeoutMs = setting('BENCH_PROBE_TIMEOUT_MS', 2000)
// The balancer takes an instance out on its first failing probe: at most one probe interval plus
// that probe's own time after SIGTERM. The drain must outlast that, with room for a loaded
// machine: 2 s is eight intervals of 250 ms.
const drainPeriodMs = setting('BENCH_DRAIN_PERIOD_MS', 2000)
const shutdownTimeoutMs = 15_000
const progress = (message: string) => console.error(`[bench:shutdown +${Date.now() - started} ms] ${message}`)

const balancer = await startBalancer({ probeIntervalMs, probeTimeoutMs })
const database = await scratchPostgres(process.env.DATABASE_URL || 'postgres://root@127.0.0.1:5432/postgres')
const dataDir = mkdtempSync(join(tmpdir(), 'blog-bench-shutdown-'))
const env = {
  ...database.env,
  // What clients call, as in a fleet (without it each instance warns).
  PUBLIC_URL: balancer.url,
  DATA_DIR: dataDir,
  DRAIN_PERIOD_MS: String(drainPeriodMs),
  SHUTDOWN_TIMEOUT_MS: String(shutdownTimeoutMs),
  // The probes and metrics on the internal listener only, as in production.
  INTERNAL_ON_PUBLIC_PORT: 'false',
  // Sign-ups are set-up here, not what is measured.
  BCRYPT_COST: '4',
  // Each connection's user writes a fifth of its requests, far past a person's write budget.
  ...BENCH_WRITE_BUDGET,
  // Its createComment loops comment far more often than every 15 s, as new accounts (BENCH_COMMENTS).
  ...BENCH_COMMENTS,
}
const live: Instance[] = []
let exitCode: number
try {
  // The first one alone applies the migrations; the second finds them done.
  live.push(await startInstance('A', env, balancer))
  live.push(await startInstance('B', env, balancer))
  await Promise.all([balancer.until('A', true), balancer.until('B', true)])
  const { writers, postIds } = await signUp(balancer.url, connections)
  progress(`A and B in rotation; ${connections} users signed up; load starts`)
  const load = startLoad(balancer.url, connections, writers, postIds)
  await sleep(warmupMs)

  const restarts: Restart[] = []
  for (const [name, next] of [
    ['A', "A'"],
    ['B', "B'"],
  ] as const) {
    const index = live.findIndex((instance) => instance.name === name)
    load.phase = `${name} draining`
    progress(`SIGTERM to ${name}`)
    const { restart, replacement } = await replace(live[index]!, next, env, balancer, () => {
      load.phase = `${name} gone, ${next} starting`
    })
    live[index] = replacement
    restarts.push(restart)
    progress(`${name} exited ${restart.exitCode}; ${next} in rotation`)
  }
  load.phase = 'after'
  await sleep(afterMs)
  const counts = await load.stop()
  const finalStops = await stopAll(live.splice(0))

  const report = {
    settings: { connections, warmupMs, afterMs, probeIntervalMs, probeTimeoutMs, drainPeriodMs, shutdownTimeoutMs },
    ...counts,
    forwarded: balancer.forwarded(),
    rotation: balancer.events.map((event) => ({ ...event, at: event.at - started })),
    restarts,
    finalStops,
    msTotal: Date.now() - started,
  }
  console.log(JSON.stringify(report, null, 2))
  const exitCodes = [...restarts, ...finalStops].map((each) => each.exitCode)
  const unexpected = Object.keys(counts.unexpected).length
  exitCode = counts.failed === 0 && unexpected === 0 && exitCodes.every((code) => code === 0) ? 0 : 1
} finally {
  for (const { server } of live) if (server.child.exitCode === null) server.child.kill('SIGKILL')
  await Promise.all(live.map(({ server }) => server.exit))
  await balancer.close()
  await database.drop()
  rmSync(dataDir, { recursive: true, force: true })
}
process.exit(exitCode)
