// Fuzzing every operation with requests generated from the spec's own schemas
// (test/helpers/fuzz-requests.ts): valid ones and ones mutated in one place, from anonymous callers,
// users, admins and forged tokens, about ids that exist and ids that do not, most through
// app.inject and a share through a real port with Node's fetch. Every answer must be documented
// (the contract checker of test/helpers/build.ts fails a response that is not), none may be a 5xx,
// and none may take longer than a generous guard.
//
// The seed is fixed so every run sends the same requests; FUZZ_SEED changes it, FUZZ_RUNS the
// number of requests per operation (default 30: 810 requests over the 27 operations). A failure prints
// the seed and one example request per kind of failure.
import type { AddressInfo } from 'node:net'
import fc from 'fast-check'
import t from 'tap'
import { listOperations } from '../../src/spec.ts'
import { build } from '../helpers/build.ts'
import { ContractViolation } from '../helpers/contract.ts'
import { decodableImages, makeFixtures, refusableFiles, type Fixtures } from '../helpers/fuzz-fixtures.ts'
import { requestsFor, urlOf, type Plan } from '../helpers/fuzz-requests.ts'
import { specSchemas } from '../helpers/spec-schemas.ts'

const SEED = Number(process.env.FUZZ_SEED ?? 14)
const RUNS_PER_OPERATION = Number(process.env.FUZZ_RUNS ?? 30)
/** Far above any answer's normal time: only a request that hangs or burns seconds of CPU trips it. */
const HANG_GUARD_MS = 20_000

// About 1 100 requests, a few hundred through a separate fetch process: more than the suite's
// 120 s per file on a loaded two-core machine. A hang is still caught, per request, above.
t.setTimeout(360_000)

interface Outcome {
  status?: number
  /** Why the request failed the test, or undefined. */
  failure?: string
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi

function describe(plan: Plan, payload: string | Buffer | undefined) {
  const body =
    payload === undefined ? 'no body' : `${payload.length} bytes ${JSON.stringify(payload.toString().slice(0, 160))}`
  const token = plan.caller === 'token' ? ` (${String(plan.token).slice(0, 80)})` : ''
  return `${plan.method} ${urlOf(plan).slice(0, 200)} as ${plan.caller}${token} via ${plan.via} [${plan.label}] content-type ${JSON.stringify(plan.contentType)} ${body}`
}

t.test('every operation, fuzzed from its own schemas: no 5xx, every answer in the contract, none hangs', async (t) => {
  t.comment(`FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS_PER_OPERATION} (set them to change the run)`)
  // A small upload limit: uploads past it stay cheap to send.
  const app = await build(t, { UPLOAD_LIMIT_BYTES: String(256 * 1024) })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  const checkedFetch = app.contractFetch()
  const { deref } = specSchemas()
  const [images, badFiles] = await Promise.all([decodableImages(), refusableFiles()])
  const operations = listOperations()

  async function send(plan: Plan, fixtures: Fixtures): Promise<Outcome> {
    const headers: Record<string, string> = { ...plan.headers }
    if (plan.contentType !== undefined) headers['content-type'] = plan.contentType
    if (plan.caller === 'token') headers.authorization = plan.token!
    else if (plan.caller !== 'anonymous') headers.authorization = fixtures.accounts[plan.caller].auth.authorization
    const payload = plan.raw ?? (plan.json === undefined ? undefined : JSON.stringify(plan.json))
    const url = urlOf(plan)
    const started = Date.now()
    let timer: NodeJS.Timeout | undefined
    const guard = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${HANG_GUARD_MS} ms`)), HANG_GUARD_MS)
    })
    try {
      const answer =
        plan.via === 'fetch' && !(payload !== undefined && ['GET', 'HEAD'].includes(plan.method))
          ? checkedFetch(`${base}${url}`, {
              method: plan.method,
              headers,
              body: payload,
              signal: AbortSignal.timeout(HANG_GUARD_MS),
            }).then((response) => response.status)
          : app.inject({ method: plan.method as 'GET', url, headers, payload }).then((response) => response.statusCode)
      const status = await Promise.race([answer, guard])
      // The app shares this process: a request that blocks the event loop delays the guard's timer too.
      if (Date.now() - started > HANG_GUARD_MS)
        return { status, failure: `hang: answered ${status} after ${Date.now() - started} ms` }
      if (status >= 500) return { status, failure: `${status}` }
      return { status }
    } catch (error) {
      if (error instanceof ContractViolation)
        return { failure: `contract: ${error.problems[0]!.replace(UUID, '{id}').slice(0, 200)}` }
      const cause = (error as { cause?: { code?: string; message?: string } }).cause
      return { failure: `no answer: ${(error as Error).message}${cause ? ` (${cause.code ?? cause.message})` : ''}` }
    } finally {
      clearTimeout(timer)
    }
  }

  const failures = new Map<string, { count: number; example: string }>()
  const statuses = new Map<string, number>()
  let sent = 0
  let fixturesMs = 0
  const started = Date.now()
  const slowest: { ms: number; example: string }[] = []
  let previousFetch: string | undefined
  let fixtures: Fixtures | undefined
  let changed = true
  for (const [index, entry] of operations.entries()) {
    // Fresh accounts and content after every operation that may have changed them (its requests
    // delete posts, end sessions, rotate refresh tokens); reads leave them for the next operation.
    if (changed || fixtures === undefined) {
      const fixturesStarted = Date.now()
      fixtures = await makeFixtures(app, images)
      fixturesMs += Date.now() - fixturesStarted
    }
    changed = entry.method !== 'GET'
    const pathMethods = operations.filter((other) => other.path === entry.path).map((other) => other.method)
    const arbitrary = requestsFor(entry, pathMethods, deref, { hints: fixtures.hints, images, badFiles })
    for (const plan of fc.sample(arbitrary, { seed: SEED + index, numRuns: RUNS_PER_OPERATION })) {
      const requestStarted = Date.now()
      const outcome = await send(plan, fixtures)
      sent++
      // A socket-level failure may come from what the request before it left on the connection.
      if (outcome.failure?.startsWith('no answer') && previousFetch)
        outcome.failure += `; the real-port request before it: ${previousFetch.slice(0, 200)}`
      if (plan.via === 'fetch') previousFetch = `${describe(plan, undefined)} → ${outcome.status ?? outcome.failure}`
      // Reported, not asserted: the slowest requests point at costs worth a look.
      const ms = Date.now() - requestStarted
      if (slowest.length < 3 || ms > slowest.at(-1)!.ms) {
        slowest.push({
          ms,
          example: describe(plan, plan.raw ?? (plan.json === undefined ? undefined : JSON.stringify(plan.json))).slice(
            0,
            240,
          ),
        })
        slowest.sort((a, b) => b.ms - a.ms).splice(3)
      }
      const key = `${entry.operation.operationId} ${outcome.status ?? 'none'}`
      statuses.set(key, (statuses.get(key) ?? 0) + 1)
      if (outcome.failure === undefined) continue
      const failure = `${entry.operation.operationId}: ${outcome.failure}`
      const seen = failures.get(failure)
      if (seen) seen.count++
      else
        failures.set(failure, {
          count: 1,
          example: describe(plan, plan.raw ?? (plan.json === undefined ? undefined : JSON.stringify(plan.json))),
        })
    }
  }
  t.comment(
    `${sent} requests in ${Math.round((Date.now() - started) / 1000)} s (${Math.round(fixturesMs / 1000)} s of it making fixtures); answers by operation and status: ${[...statuses].map(([key, count]) => `${key} ×${count}`).join(', ')}`,
  )
  t.comment(`slowest: ${slowest.map(({ ms, example }) => `${ms} ms: ${example}`).join(' | ')}`)
  for (const [failure, { count, example }] of failures)
    t.fail(`${failure} (×${count}, FUZZ_SEED=${SEED}); e.g. ${example}`)
  if (failures.size === 0) t.pass(`${sent} requests: no 5xx, no contract break, no hang`)
})
