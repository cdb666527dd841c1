// `npm start` as a newcomer runs it: a real process, a real port, data kept between restarts,
// and a graceful stop on SIGTERM that still answers the request in flight.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, mkdirSync, mkdtempSync, readdirSync } from 'node:fs'
import { request, type ClientRequest } from 'node:http'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { eventually } from './helpers/images.ts'
import { startServer } from './helpers/server-process.ts'
import { usingPostgres } from './helpers/build.ts'

const env = {
  DATA_DIR: mkdtempSync(join(tmpdir(), 'blog-server-')),
  DATABASE_URL: process.env.DATABASE_URL ?? '',
  JWT_SECRET: 'server-test-secret-server-test-secret-0123',
}

const migrationsApplied = (logs: Record<string, unknown>[]) =>
  logs.find((entry) => Array.isArray(entry.migrations))?.migrations as string[] | undefined

t.test(
  `starts, answers, stops with exit code 0, and starts again on the same data (${usingPostgres ? 'PostgreSQL' : 'embedded'})`,
  async (t) => {
    const first = await startServer(env)
    const ping = await fetch(`${first.url}/ping`)
    t.equal(ping.status, 200)
    t.match(await ping.json(), { data: { status: 'ok' }, error: null, meta: { requestId: String } })
    const account = { email: `restart-${Date.now()}@example.com`, password: 'survives a restart' }
    const registered = await fetch(`${first.url}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...account, name: 'Restart' }),
    })
    t.equal(registered.status, 201)
    first.child.kill('SIGTERM')
    t.equal(await first.exit, 0, 'SIGTERM ends the process cleanly')

    const second = await startServer(env)
    t.same(migrationsApplied(second.logs), [], 'the database was kept: nothing left to migrate')
    t.equal((await fetch(`${second.url}/health`)).status, 200)
    const signedIn = await fetch(`${second.url}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(account),
    })
    t.equal(signedIn.status, 200, 'the account written before the restart is there after it')
    second.child.kill('SIGINT')
    t.equal(await second.exit, 0, 'SIGINT too')
  },
)

t.test('a request in flight when SIGTERM arrives is still answered', async (t) => {
  const server = await startServer(env)
  const body = JSON.stringify({ email: 'reader@example.com', password: 'correct horse battery' })
  const { port } = new URL(server.url)
  const logged = (msg: string) => server.logs.some((entry) => entry.msg === msg)
  /** Whether a new connection is refused: the listener is closed (or the process gone). */
  const refused = () =>
    new Promise<boolean>((resolve) => {
      const probe = connect(Number(port), '127.0.0.1')
      probe.once('connect', () => (probe.destroy(), resolve(false)))
      probe.once('error', () => resolve(true))
    })
  let req!: ClientRequest
  const answer = new Promise<{ status: number; body: string } | { error: string }>((resolve) => {
    req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/login',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = ''
        res.on('data', (chunk) => (text += chunk))
        res.on('end', () => resolve({ status: res.statusCode!, body: text }))
      },
    )
    req.on('error', (error) => resolve({ error: error.message }))
  })
  // Half the body, until the server has the request; then SIGTERM, and the rest only once the close
  // has begun: the process says it shuts down, and its listener refuses new connections.
  req.write(body.slice(0, 10))
  t.ok(
    await eventually(async () => logged('incoming request'), 30_000, 20),
    'the server has the request before the signal',
  )
  server.child.kill('SIGTERM')
  t.ok(await eventually(async () => logged('shutting down: draining'), 30_000, 20), 'the shutdown has begun')
  t.ok(await eventually(refused, 30_000, 20), 'the listener is closed')
  req.end(body.slice(10))
  const response = await answer
  t.notOk('error' in response && response.error, 'the request in flight was not cut off')
  if ('status' in response) {
    t.not(response.status, 503, 'not refused as closing')
    t.match(JSON.parse(response.body), { meta: { requestId: String } }, 'answered in the envelope')
  }
  t.equal(await server.exit, 0)
})

t.test(
  'a first start killed while it makes the embedded database does not stop the next start',
  { skip: usingPostgres && 'embedded database only: PostgreSQL clusters are made by their operator' },
  async (t) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'blog-first-start-'))
    const embedded = { ...env, DATA_DIR: dataDir, DATABASE_URL: '' }
    // The leftover an interrupted first start used to leave (seen after a Ctrl-C): a cluster directory
    // without PG_VERSION, on which every later start failed.
    mkdirSync(join(dataDir, 'pglite', 'base'), { recursive: true })

    const killed = spawn(process.execPath, ['--import=tsx', 'src/server.ts'], {
      env: { ...process.env, PORT: '0', INTERNAL_PORT: '0', ...embedded },
    })
    const exited = once(killed, 'exit')
    const staging = join(dataDir, 'pglite.initializing')
    while (!existsSync(staging) && killed.exitCode === null) await sleep(10)
    killed.kill('SIGKILL')
    await exited
    t.ok(existsSync(staging), 'killed while initdb was running')

    const server = await startServer(embedded)
    t.equal((await fetch(`${server.url}/ping`)).status, 200, 'the next start makes the database and answers')
    t.ok(existsSync(join(dataDir, 'pglite', 'PG_VERSION')))
    t.ok(
      readdirSync(dataDir).some((name) => /^pglite\.incomplete-\d+$/.test(name)),
      'the old leftover was moved aside, not deleted',
    )
    server.child.kill('SIGTERM')
    t.equal(await server.exit, 0)
  },
)

t.test('`npm start` stopped by a SIGTERM to npm alone (as a supervisor sends it) stops the server too', async (t) => {
  const server = await startServer(env, ['npm', 'start', '--silent'])
  const serverPid = server.logs.find((entry) => typeof entry.pid === 'number')?.pid as number
  t.not(serverPid, server.child.pid, 'the server is a process of its own under npm')
  server.child.kill('SIGTERM')
  await server.exit
  // The server shuts down gracefully rather than being orphaned: its process goes away.
  const gone = async () => {
    try {
      process.kill(serverPid, 0)
      return false
    } catch {
      return true
    }
  }
  t.ok(await eventually(gone, 30_000, 100), `server process ${serverPid} ended with npm`)
  t.ok(
    server.logs.some((entry) => entry.msg === 'shutting down: draining'),
    'after a graceful shutdown',
  )
})
