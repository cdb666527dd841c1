// `npm run bench:hooks`: what every function of ours on the request path costs, per request, on
// the cheapest routes: GET /ping and cached getPost and listPosts (scripts/bench/hook-costs.ts).
// The service runs as `npm start` runs it, under V8's CPU profiler (`--cpu-prof`, a sample every
// 100 µs), seeded with 60 posts; each route is loaded by autocannon (20 connections, the posts
// and pages spread), and only the samples taken during its measured run count. DATABASE_URL for
// PostgreSQL (a scratch database, dropped after); the embedded database otherwise.
// BENCH_DURATION_SECONDS per route (10).
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { scratchDatabase } from './bench/database.ts'
import { hookCosts, monotonicMicros, type HookCosts } from './bench/hook-costs.ts'
import { measure, spread } from './bench/measure.ts'
import { BENCH_ADMIN, BENCH_WRITE_BUDGET, seed } from './bench/seed.ts'
import { startServer } from './bench/server.ts'

const DURATION = Number(process.env.BENCH_DURATION_SECONDS ?? 10)
const CONNECTIONS = 20
const POSTS = 60

const database = await scratchDatabase(process.env.DATABASE_URL)
const profiles = mkdtempSync(join(tmpdir(), 'blog-bench-hooks-'))
const server = await startServer({ ...database.env, ...BENCH_ADMIN, ...BENCH_WRITE_BUDGET }, [
  '--cpu-prof',
  `--cpu-prof-dir=${profiles}`,
  '--cpu-prof-interval=100',
])
const windows: { route: string; from: number; to: number; requests: number }[] = []
try {
  const seeded = await seed(server.url, POSTS)
  const routes: Record<string, string[]> = {
    'GET /ping': ['/ping'],
    'GET /ping again': ['/ping'],
    'getPost, cached': seeded.postIds.map((id) => `/posts/${id}`),
    'listPosts first pages, cached': Array.from({ length: 2 * CONNECTIONS }, (_, index) => `/posts?limit=${index + 1}`),
    'GET /ping last': ['/ping'],
  }
  for (const [route, paths] of Object.entries(routes)) {
    const options = { url: server.url, connections: CONNECTIONS }
    await measure(`${route} (warm-up)`, { ...options, duration: 3, ...spread(paths) })
    const from = monotonicMicros()
    const figure = await measure(route, { ...options, duration: DURATION, ...spread(paths) })
    windows.push({ route, from, to: monotonicMicros(), requests: figure.requests! })
    if (figure.non2xx + figure.errors > 0)
      throw new Error(`${route}: ${figure.non2xx} non-2xx, ${figure.errors} errors`)
  }
} finally {
  await server.stop()
  await database.drop()
}
// The main thread's profile is the largest: workers (bcrypt, rendering) write their own.
const [profile] = readdirSync(profiles)
  .map((name) => join(profiles, name))
  .sort((a, b) => statSync(b).size - statSync(a).size)
const results: Record<string, HookCosts> = {}
for (const window of windows) {
  const costs = hookCosts(profile!, window, window.requests)
  results[window.route] = costs
  const micros = (value: number) => `${value.toFixed(2).padStart(6)} µs`
  console.log(
    `\n${window.route}: ${window.requests} requests, ${micros(costs.busyMicrosPerRequest)} of main-thread CPU each`,
  )
  for (const { where, microsPerRequest } of costs.ours.filter((cost) => cost.microsPerRequest >= 0.05))
    console.log(`  ${micros(microsPerRequest)}  ${where}`)
  console.log(`  ${micros(costs.framework.hookDispatchMicrosPerRequest)}  Fastify's hook runner, starting each hook`)
  console.log(`  ${micros(costs.framework.restMicrosPerRequest)}  Fastify, Node and V8 (no frame of ours), of which:`)
  for (const { where, microsPerRequest } of costs.framework.top)
    console.log(`      ${micros(microsPerRequest)}  ${where}`)
}
rmSync(profiles, { recursive: true, force: true })
console.log(JSON.stringify(results))
