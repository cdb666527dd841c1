// Instances of src/server.ts on fixed ports, as a load balancer's configuration names them, and the
// rolling restart docs/operations.md describes, done under load: for each instance in turn, SIGTERM,
// wait for its exit (the drain, then the close), start it again on the same port, wait for its
// readiness (GET /health on the internal listener), then the next. Client loops keep reading and
// writing through the load balancer all along; every answer but the expected one is a failure.
import type { Test } from 'tap'
import type { HttpsAnswer, HttpsRequest } from './https-client.ts'
import { eventually } from './images.ts'
import { startServer, type ServerProcess } from './server-process.ts'

export interface Fleet {
  /** The process serving each port now. */
  current: ServerProcess[]
  /** The log lines of every process started so far. */
  logs(): Record<string, unknown>[]
  /** Restarts the instance at `index` as described above, calling `onStep` as each step begins; its exit code. */
  restart(index: number, onStep: (step: string) => void): Promise<number | null>
}

async function ready(server: ServerProcess): Promise<void> {
  const healthy = async () => {
    try {
      return (await fetch(`${server.internalUrl}/health`)).status === 200
    } catch {
      return false
    }
  }
  if (!(await eventually(healthy, 60_000, 100))) throw new Error(`${server.url} never became ready`)
}

/** One instance per port, all with `env`, started together and ready; killed when the test ends. */
export async function fleetOf(t: Test, ports: number[], env: Record<string, string>): Promise<Fleet> {
  const started: ServerProcess[] = []
  t.teardown(async () => {
    const alive = started.filter(({ child }) => child.exitCode === null && child.signalCode === null)
    alive.forEach(({ child }) => child.kill('SIGKILL'))
    await Promise.all(alive.map(({ exit }) => exit))
  })
  const start = async (port: number) => {
    const server = await startServer({ ...env, PORT: String(port) })
    started.push(server)
    await ready(server)
    return server
  }
  const current = await Promise.all(ports.map(start))
  return {
    current,
    logs: () => started.flatMap((server) => server.logs),
    async restart(index, onStep) {
      const name = `instance ${index + 1}`
      onStep(`while ${name} drains and stops`)
      current[index]!.child.kill('SIGTERM')
      const code = await current[index]!.exit
      onStep(`while ${name} starts again`)
      current[index] = await start(ports[index]!)
      return code
    },
  }
}

export interface LoadRequest {
  path: string
  headers?: Record<string, string>
  /** The JSON body, or one made for each request from its x-request-id (a write that must differ each time). */
  body?: object | ((id: string) => object)
}

export interface Failure {
  step: string
  /** Since the step began: where in it the request was sent (for the report, not asserted). */
  sentAfterMs: number
  request: string
  id: string
  outcome: string
  /** Whether an instance logged it (did it reach the service?). */
  reachedService?: boolean
}

export interface RestartReport {
  total: number
  /** Every step, in order: before, two for each instance (its drain and stop, its start), after. */
  steps: string[]
  /** Requests sent during each step. */
  byStep: Record<string, number>
  exits: (number | null)[]
  /** Whether each restarted instance served load before the loops stopped. */
  restartedServed: boolean
  failures: Failure[]
}

type Send = (path: string, options?: HttpsRequest) => Promise<HttpsAnswer>

/**
 * Restarts every instance of `fleet` in turn while `loops` clients (`client(index)`) alternate a
 * GET of `read` (expecting 200) and a POST of `write` (expecting 201), each with an
 * x-request-id of its own. The loops start before the first SIGTERM and stop once each restarted
 * instance has served some of their requests.
 */
export async function rollingRestartUnderLoad(
  fleet: Fleet,
  client: (index: number) => Send,
  { read, write }: { read: LoadRequest; write: LoadRequest },
  loops = 4,
): Promise<RestartReport> {
  let step = 'before the restart'
  let stepStart = Date.now()
  const steps = [step]
  let running = true
  const byStep: Record<string, number> = {}
  const failures: Failure[] = []
  let total = 0
  const loop = async (index: number) => {
    const send = client(index)
    for (let n = 0; running; n++) {
      const writing = n % 2 === 1
      const { path, headers = {}, body } = writing ? write : read
      const id = `load-${index}-${n}`
      const at = step
      const sentAfterMs = Date.now() - stepStart
      byStep[at] = (byStep[at] ?? 0) + 1
      total++
      const request = `${writing ? 'POST' : 'GET'} ${path}`
      let outcome: string
      try {
        const answer = await send(path, {
          method: writing ? 'POST' : 'GET',
          headers: { ...headers, 'x-request-id': id },
          body: typeof body === 'function' ? body(id) : body,
        })
        outcome = answer.status === (writing ? 201 : 200) ? 'ok' : `${answer.status} ${answer.text.slice(0, 200)}`
      } catch (error) {
        outcome = `${(error as NodeJS.ErrnoException).code ?? ''} ${(error as Error).message}`
      }
      if (outcome !== 'ok') failures.push({ step: at, sentAfterMs, request, id, outcome })
    }
  }
  const done = Promise.all(Array.from({ length: loops }, (_, index) => loop(index)))
  await eventually(async () => total >= 4 * loops, 30_000, 20)
  const exits: (number | null)[] = []
  for (let index = 0; index < fleet.current.length; index++) {
    exits.push(await fleet.restart(index, (next) => (steps.push(next), (step = next), (stepStart = Date.now()))))
  }
  step = 'after the restart'
  steps.push(step)
  const served = (server: { logs: Record<string, unknown>[] }) =>
    server.logs.filter((entry) => entry.msg === 'incoming request' && String(entry.reqId).startsWith('load-')).length
  const restartedServed = await eventually(
    async () => fleet.current.every((server) => served(server) >= 10),
    30_000,
    50,
  )
  running = false
  await done
  const logged = new Set(fleet.logs().map((entry) => entry.reqId))
  for (const failure of failures) failure.reachedService = logged.has(failure.id)
  return { total, steps, byStep, exits, restartedServed, failures }
}

/** Failures counted by step, method and answer: many of them stay readable. */
export function countFailures(failures: Failure[]): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const { step, request, outcome, reachedService } of failures) {
    const answer = outcome.split(/\r?\n/)[0]!.slice(0, 40)
    const key = `${step}: ${request.split(' ')[0]} → ${answer}${reachedService ? '' : ' (never reached an instance)'}`
    counts[key] = (counts[key] ?? 0) + 1
  }
  return counts
}
