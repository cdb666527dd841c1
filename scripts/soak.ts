// Soak run: `npm run bench:soak`. Minutes of mixed traffic (reads, writes, sign-ins) against
// src/server.ts as its own process on loopback; reports errors (expected: none) and the server's
// memory — RSS from /proc, heap from its own /metrics — after warm-up and at the end (expected: flat).
// Bounded: stops by itself after SOAK_SECONDS (180). SOAK_CONNECTIONS (8); DATABASE_URL as for the server.
import { readFileSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Agent, request } from 'node:http'
import { startServer } from '../test/helpers/server-process.ts'

const seconds = Number(process.env.SOAK_SECONDS ?? 180)
const connections = Number(process.env.SOAK_CONNECTIONS ?? 8)
const warmupMs = Math.min(15_000, (seconds * 1000) / 6)

const server = await startServer({
  DATA_DIR: mkdtempSync(join(tmpdir(), 'blog-soak-')),
  DATABASE_URL: process.env.DATABASE_URL ?? '',
  JWT_SECRET: 'soak-secret-soak-secret-soak-secret-0123456',
  // Sign-ins are part of the mix; their cost is the benchmark's business, not the soak's.
  BCRYPT_COST: '6',
  // info: the helper waits for the "Server listening" line; the request lines are dropped below.
  LOG_LEVEL: 'info',
  REGISTER_LIMIT_PER_ADDRESS: '1000000',
  LOGIN_LIMIT_PER_ADDRESS: '1000000',
})
const { port } = new URL(server.url)
const agent = new Agent({ keepAlive: true, maxSockets: connections })

interface Answer {
  status: number
  body: { data?: Record<string, unknown> | null } | null
}

function call(method: string, path: string, body?: unknown, token?: string): Promise<Answer> {
  const payload = body === undefined ? undefined : JSON.stringify(body)
  const headers: Record<string, string> = {}
  if (payload !== undefined) headers['content-type'] = 'application/json'
  if (token !== undefined) headers.authorization = `Bearer ${token}`
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, agent, headers }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk) => (text += chunk))
      res.on('end', () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : null }))
    })
    req.on('error', reject)
    req.end(payload)
  })
}

const errors: Record<string, number> = {}
let requests = 0
async function expect(label: string, status: number, answer: Promise<Answer>): Promise<Answer | null> {
  requests++
  try {
    const result = await answer
    if (result.status === status) return result
    errors[`${label} ${result.status}`] = (errors[`${label} ${result.status}`] ?? 0) + 1
  } catch (error) {
    errors[`${label} ${(error as Error).message}`] = (errors[`${label} ${(error as Error).message}`] ?? 0) + 1
  }
  return null
}

/** One simulated client: signs up, then writes and reads posts and comments until the end. */
async function client(index: number, until: number) {
  const email = `soak-${index}-${Date.now()}@example.com`
  const password = 'soak password 1234'
  const signedUp = await expect('register', 201, call('POST', '/register', { email, password, name: `Soak ${index}` }))
  let token = String(signedUp?.body?.data?.accessToken)
  const postIds: string[] = []
  for (let n = 0; Date.now() < until; n++) {
    const roll = n % 20
    if (roll === 0) {
      const created = await expect('createPost', 201, call('POST', '/posts', { title: `Soak ${index}.${n}`, body: 'Soak body '.repeat(20), status: 'published' }, token))
      if (created?.body?.data) postIds.push(String(created.body.data.id))
    } else if (roll === 1 && postIds.length > 0) {
      await expect('createComment', 201, call('POST', `/posts/${postIds.at(-1)}/comments`, { body: `Comment ${n}` }, token))
    } else if (roll === 2) {
      const signedIn = await expect('login', 200, call('POST', '/login', { email, password }))
      if (signedIn?.body?.data) token = String(signedIn.body.data.accessToken)
    } else if (roll === 3) {
      await expect('me', 200, call('GET', '/me', undefined, token))
    } else if (roll < 10 && postIds.length > 0) {
      await expect('getPost', 200, call('GET', `/posts/${postIds[n % postIds.length]}`))
    } else if (roll < 12 && postIds.length > 0) {
      await expect('listComments', 200, call('GET', `/posts/${postIds[n % postIds.length]}/comments`))
    } else if (roll === 12) {
      await expect('health', 200, call('GET', '/health'))
    } else {
      await expect('listPosts', 200, call('GET', '/posts?limit=20'))
    }
  }
}

async function memory() {
  const status = readFileSync(`/proc/${server.child.pid}/status`, 'utf8')
  const rssKiB = Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1])
  const metrics = await new Promise<string>((resolve, reject) =>
    request({ host: '127.0.0.1', port, path: '/metrics', agent }, (res) => {
      let text = ''
      res.on('data', (chunk) => (text += chunk))
      res.on('end', () => resolve(text))
    }).on('error', reject).end(),
  )
  const heapUsed = Number(/^nodejs_heap_size_used_bytes (\d+)/m.exec(metrics)?.[1])
  return { rssMiB: Math.round(rssKiB / 102.4) / 10, heapUsedMiB: Math.round(heapUsed / 104857.6) / 10, requests }
}

// The parent keeps no log lines: holding them would grow this process, not the server.
const dropLogs = setInterval(() => (server.logs.length = 0), 1000)
const started = Date.now()
const until = started + seconds * 1000
const clients = Array.from({ length: connections }, (_, index) => client(index, until))
await new Promise((resolve) => setTimeout(resolve, warmupMs))
const atStart = await memory()
console.log(`after ${Math.round(warmupMs / 1000)} s warm-up:`, atStart)
const ticker = setInterval(async () => console.log(`${Math.round((Date.now() - started) / 1000)} s:`, await memory(), 'errors', errors), 30_000)
await Promise.all(clients)
clearInterval(ticker)
clearInterval(dropLogs)
const atEnd = await memory()
server.child.kill('SIGTERM')
const exitCode = await server.exit
agent.destroy()
const report = {
  seconds,
  connections,
  requests,
  requestsPerSecond: Math.round(requests / seconds),
  errors,
  errorCount: Object.values(errors).reduce((sum, n) => sum + n, 0),
  memoryAfterWarmup: atStart,
  memoryAtEnd: atEnd,
  exitCode,
}
console.log(JSON.stringify(report, null, 2))
process.exit(report.errorCount === 0 && exitCode === 0 ? 0 : 1)
