// Shutdown under load: `npm run bench:shutdown`. Starts src/server.ts as its own process, keeps it
// busy from keep-alive connections, sends SIGTERM midway, and counts what became of every request
// the server accepted (its own log says which: each request carries an x-request-id). Expected:
// every accepted request answered, none failed; exit code 0.
//   BENCH_CONNECTIONS (32), BENCH_SIGTERM_AFTER_MS (3000); DATABASE_URL as for the server.
import { Agent, request } from 'node:http'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startServer } from '../test/helpers/server-process.ts'

const connections = Number(process.env.BENCH_CONNECTIONS ?? 32)
const sigtermAfterMs = Number(process.env.BENCH_SIGTERM_AFTER_MS ?? 3000)

type Outcome = { status: number; complete: boolean } | { error: string }

const server = await startServer({
  DATA_DIR: mkdtempSync(join(tmpdir(), 'blog-bench-shutdown-')),
  DATABASE_URL: process.env.DATABASE_URL ?? '',
  JWT_SECRET: 'bench-shutdown-secret-bench-shutdown-secret',
  LOG_LEVEL: 'info',
})
const { port } = new URL(server.url)
const agent = new Agent({ keepAlive: true, maxSockets: connections })
const paths = ['/ping', '/posts', '/health', '/categories']
const outcomes = new Map<string, Outcome>()
let sequence = 0

function send(path: string): Promise<Outcome> {
  const id = `bench-${++sequence}`
  return new Promise<Outcome>((resolve) => {
    const req = request({ host: '127.0.0.1', port, path, agent, headers: { 'x-request-id': id } }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk) => (body += chunk))
      res.on('end', () => {
        // A complete answer is a whole envelope naming this request.
        let complete: boolean
        try {
          complete = JSON.parse(body).meta?.requestId === id
        } catch {
          complete = false
        }
        resolve({ status: res.statusCode!, complete })
      })
      res.on('error', (error) => resolve({ error: `response: ${error.message}` }))
    })
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }))
    req.end()
  }).then((outcome) => {
    outcomes.set(id, outcome)
    return outcome
  })
}

let exited = false
void server.exit.then(() => (exited = true))
/** One client loop per connection, until the server is gone. */
async function loop(index: number) {
  for (let n = index; !exited; n++) {
    const outcome = await send(paths[n % paths.length]!)
    if ('error' in outcome && outcome.error === 'ECONNREFUSED') break
  }
}

const started = Date.now()
const loops = Array.from({ length: connections }, (_, index) => loop(index))
await new Promise((resolve) => setTimeout(resolve, sigtermAfterMs))
const sigtermAt = Date.now()
const sentBeforeSigterm = sequence
server.child.kill('SIGTERM')
const exitCode = await server.exit
const exitedAt = Date.now()
await Promise.all(loops)
agent.destroy()

// What the server accepted: every request it logged as incoming.
const accepted = new Set(
  server.logs.filter((entry) => entry.msg === 'incoming request').map((entry) => String(entry.reqId)),
)
const count = (predicate: (outcome: Outcome, id: string) => boolean) =>
  [...outcomes].filter(([id, outcome]) => predicate(outcome, id)).length
const answered = (outcome: Outcome) => 'status' in outcome && outcome.complete
const statuses: Record<string, number> = {}
for (const outcome of outcomes.values()) {
  const key = 'status' in outcome ? String(outcome.status) : outcome.error
  statuses[key] = (statuses[key] ?? 0) + 1
}
const report = {
  connections,
  requestsSent: outcomes.size,
  sentBeforeSigterm,
  acceptedByServer: accepted.size,
  acceptedAndAnswered: count((outcome, id) => accepted.has(id) && answered(outcome)),
  acceptedButFailed: count(
    (outcome, id) => accepted.has(id) && (!answered(outcome) || ('status' in outcome && outcome.status >= 500)),
  ),
  notAccepted: count((_, id) => !accepted.has(id)),
  outcomes: statuses,
  exitCode,
  msFromSigtermToExit: exitedAt - sigtermAt,
  msTotal: exitedAt - started,
}
console.log(JSON.stringify(report, null, 2))
process.exit(report.acceptedButFailed === 0 && exitCode === 0 ? 0 : 1)
