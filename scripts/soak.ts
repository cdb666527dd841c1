// Soak run: `npm run bench:soak`. Minutes of mixed traffic (reads, writes, edits, deletions,
// thumbnail uploads, sign-ins) against
// src/server.ts as its own process on loopback; reports errors (expected: none) and the server's
// memory — RSS from /proc, heap from its own /metrics — after warm-up and at the end (expected: flat).
// Bounded: stops by itself after SOAK_SECONDS (180). SOAK_CONNECTIONS (8); DATABASE_URL as for the server.
// The server runs with the write budget lifted (BENCH_WRITE_BUDGET) and comment moderation and
// flood control off (BENCH_COMMENTS, scripts/bench/seed.ts): each client writes, and comments, at full speed.
import { readFileSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Agent, request } from 'node:http'
import { multipartBody, solidImage } from '../test/helpers/images.ts'
import { startServer } from '../test/helpers/server-process.ts'
import { BENCH_COMMENTS, BENCH_WRITE_BUDGET } from './bench/seed.ts'

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
  // Each client uploads a thumbnail every 60 steps, for minutes: more than a person's hourly allowance.
  UPLOAD_RATE_PER_USER: '100000',
  // Each client writes, edits and deletes at full speed: more than a person's write budget.
  ...BENCH_WRITE_BUDGET,
  // Each client comments every few steps as a new account: neither held nor refused (BENCH_COMMENTS).
  ...BENCH_COMMENTS,
})
const { port } = new URL(server.url)
const agent = new Agent({ keepAlive: true, maxSockets: connections })

interface Answer {
  status: number
  body: { data?: Record<string, unknown> | null } | null
}

/** A request body that is not JSON: a multipart upload. */
interface RawBody {
  payload: Buffer
  contentType: string
}

function call(method: string, path: string, body?: unknown, token?: string, raw?: RawBody): Promise<Answer> {
  const payload = raw?.payload ?? (body === undefined ? undefined : JSON.stringify(body))
  const headers: Record<string, string> = {}
  if (payload !== undefined) headers['content-type'] = raw?.contentType ?? 'application/json'
  if (token !== undefined) headers.authorization = `Bearer ${token}`
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, agent, headers }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk) => (text += chunk))
      res.on('end', () => {
        // An answer that is not JSON (a proxy's page, a cut-off body) is an error to count, not a crash.
        try {
          resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : null })
        } catch {
          reject(new Error(`non-JSON answer ${res.statusCode}`))
        }
      })
    })
    req.on('error', reject)
    req.end(payload)
  })
}

const errors: Record<string, number> = {}
const countError = (key: string) => (errors[key] = (errors[key] ?? 0) + 1)
let requests = 0
/** Requests per operation, so the report shows the mix that was actually sent. */
const mix: Record<string, number> = {}
async function expect(label: string, status: number, answer: Promise<Answer>): Promise<Answer | null> {
  requests++
  mix[label] = (mix[label] ?? 0) + 1
  try {
    const result = await answer
    if (result.status === status) return result
    countError(`${label} ${result.status}`)
  } catch (error) {
    countError(`${label} ${(error as Error).message}`)
  }
  return null
}

// Real photos' work for the thumbnail pipeline (decode, resize to three widths, re-encode), made once.
const photos = await Promise.all(
  ['#cc8844', '#4488cc', '#44aa66'].map((colour) => solidImage(1200, 800, 'jpeg', colour)),
)

/**
 * One simulated client: signs up, then writes, edits, reads and deletes posts (keeping a few),
 * comments, uploads thumbnails and signs in again until the end.
 */
async function client(index: number, until: number) {
  const email = `soak-${index}-${Date.now()}@example.com`
  const password = 'soak password 1234'
  const signedUp = await expect('register', 201, call('POST', '/register', { email, password, name: `Soak ${index}` }))
  let token = String(signedUp?.body?.data?.accessToken)
  const postIds: string[] = []
  for (let n = 0; Date.now() < until; n++) {
    const roll = n % 20
    if (roll === 0) {
      const created = await expect(
        'createPost',
        201,
        call(
          'POST',
          '/posts',
          { title: `Soak ${index}.${n}`, body: 'Soak body '.repeat(20), status: 'published' },
          token,
        ),
      )
      if (created?.body?.data) postIds.push(String(created.body.data.id))
    } else if (roll === 1 && postIds.length > 0) {
      await expect(
        'createComment',
        201,
        call('POST', `/posts/${postIds.at(-1)}/comments`, { body: `Comment ${n}` }, token),
      )
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
    } else if (roll === 13 && postIds.length > 0) {
      await expect(
        'updatePost',
        200,
        call('PATCH', `/posts/${postIds.at(-1)}`, { title: `Soak ${index}.${n} edited` }, token),
      )
    } else if (roll === 14 && n % 60 === 14 && postIds.length > 0) {
      // One upload every third round: each one is the costliest request of the mix.
      const photo = multipartBody([
        { name: 'file', data: photos[n % photos.length]!, filename: 'photo.jpg', contentType: 'image/jpeg' },
      ])
      await expect(
        'uploadPostThumbnail',
        200,
        call('PUT', `/posts/${postIds.at(-1)}/thumbnail`, undefined, token, photo),
      )
    } else if (roll === 15 && postIds.length > 3) {
      // The oldest post goes (with its comments and thumbnail): the data set stays about the same size.
      await expect('deletePost', 204, call('DELETE', `/posts/${postIds.shift()}`, undefined, token))
    } else {
      await expect('listPosts', 200, call('GET', '/posts?limit=20'))
    }
  }
}

async function readMemory() {
  const status = readFileSync(`/proc/${server.child.pid}/status`, 'utf8')
  const rssKiB = Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1])
  const metrics = await new Promise<string>((resolve, reject) =>
    request({ host: '127.0.0.1', port, path: '/metrics', agent }, (res) => {
      let text = ''
      res.on('data', (chunk) => (text += chunk))
      res.on('end', () => resolve(text))
    })
      .on('error', reject)
      .end(),
  )
  const heapUsed = Number(/^nodejs_heap_size_used_bytes (\d+)/m.exec(metrics)?.[1])
  if (!Number.isFinite(rssKiB) || !Number.isFinite(heapUsed)) throw new Error('no memory figures')
  return { rssMiB: Math.round(rssKiB / 102.4) / 10, heapUsedMiB: Math.round(heapUsed / 104857.6) / 10, requests }
}

/** The memory figures, or null with an error counted: a failed poll must not end the run. */
async function memory() {
  try {
    return await readMemory()
  } catch (error) {
    countError(`metrics ${(error as Error).message}`)
    return null
  }
}

// The parent keeps no log lines: holding them would grow this process, not the server.
const dropLogs = setInterval(() => (server.logs.length = 0), 1000)
const started = Date.now()
const until = started + seconds * 1000
const clients = Array.from({ length: connections }, (_, index) => client(index, until))
await new Promise((resolve) => setTimeout(resolve, warmupMs))
const atStart = await memory()
console.log(`after ${Math.round(warmupMs / 1000)} s warm-up:`, atStart)
const ticker = setInterval(
  async () => console.log(`${Math.round((Date.now() - started) / 1000)} s:`, await memory(), 'errors', errors),
  30_000,
)
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
  mix,
  errors,
  errorCount: Object.values(errors).reduce((sum, n) => sum + n, 0),
  memoryAfterWarmup: atStart,
  memoryAtEnd: atEnd,
  exitCode,
}
console.log(JSON.stringify(report, null, 2))
process.exit(report.errorCount === 0 && exitCode === 0 ? 0 : 1)
