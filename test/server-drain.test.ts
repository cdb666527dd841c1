// The drain on SIGTERM, on a real process: readiness fails at once while the public port goes on
// serving for DRAIN_PERIOD_MS, each answer then ending its keep-alive connection; after it the
// port closes and the process exits 0. What a load balancer needs to take an instance out of
// rotation without a failed request (the rolling restart itself: npm run bench:shutdown, and the
// nginx test).
import { mkdtempSync } from 'node:fs'
import { Agent, request } from 'node:http'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { eventually } from './helpers/images.ts'
import { startServer } from './helpers/server-process.ts'

// Long enough that the requests below land inside it on a loaded machine; the test waits for the
// end of it by the log, never by a clock.
const DRAIN_PERIOD_MS = 10_000

interface Answer {
  status: number
  connection: string | undefined
  reusedSocket: boolean
  body: string
}

function get(url: string, agent?: Agent): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk) => (body += chunk))
      res.on('end', () =>
        resolve({ status: res.statusCode!, connection: res.headers.connection, reusedSocket: req.reusedSocket, body }),
      )
    })
    req.on('error', reject)
    req.end()
  })
}

const refused = (url: string) =>
  new Promise<boolean>((resolve) => {
    const { hostname, port } = new URL(url)
    const probe = connect(Number(port), hostname)
    probe.once('connect', () => (probe.destroy(), resolve(false)))
    probe.once('error', () => resolve(true))
  })

t.test(
  'SIGTERM: readiness 503 at once, the public port serves through the drain, then closes; answers after that end their connection',
  async (t) => {
    const server = await startServer({
      DATA_DIR: mkdtempSync(join(tmpdir(), 'blog-drain-')),
      DATABASE_URL: process.env.DATABASE_URL ?? '',
      JWT_SECRET: 'drain-test-secret-drain-test-secret-0123',
      DRAIN_PERIOD_MS: String(DRAIN_PERIOD_MS),
      SHUTDOWN_TIMEOUT_MS: String(DRAIN_PERIOD_MS + 20_000),
    })
    const keptAlive = new Agent({ keepAlive: true, maxSockets: 1 })
    t.teardown(() => keptAlive.destroy())
    const before = await get(`${server.url}/ping`, keptAlive)
    t.equal(before.connection, 'keep-alive', 'before: the connection is kept')
    t.equal((await get(`${server.internalUrl}/health`)).status, 200, 'before: ready')

    server.child.kill('SIGTERM')
    const logged = (msg: string) => server.logs.some((entry) => entry.msg === msg)
    t.ok(await eventually(async () => logged('shutting down: draining'), 30_000, 20), 'the drain has begun')
    const readiness = await get(`${server.internalUrl}/health`)
    t.equal(readiness.status, 503, 'readiness fails from the start of the drain')
    t.match(JSON.parse(readiness.body), { error: { code: 'SERVICE_UNAVAILABLE', details: [{ path: 'instance' }] } })
    t.equal((await get(`${server.internalUrl}/health/live`)).status, 200, 'liveness still answers')

    const onKeptConnection = await get(`${server.url}/ping`, keptAlive)
    t.equal(onKeptConnection.status, 200, 'a request on the open keep-alive connection is served')
    t.ok(onKeptConnection.reusedSocket, 'on that same connection')
    t.equal(onKeptConnection.connection, 'keep-alive', 'which is kept: a proxy reuses it rather than open another')
    const onNewConnection = await get(`${server.url}/posts`)
    t.equal(onNewConnection.status, 200, 'a new connection is still accepted and served')
    t.notOk(logged('drain period over: closing the public port'), 'all of that within the drain period')

    t.ok(await eventually(async () => logged('drain period over: closing the public port'), 60_000, 50))
    t.ok(await eventually(() => refused(server.url), 30_000, 20), 'after the drain the public port is closed')
    const afterClose = await get(`${server.url}/ping`, keptAlive)
    t.equal(afterClose.status, 200, 'a request on a connection still open is served')
    t.ok(afterClose.reusedSocket, 'on the kept connection')
    t.equal(afterClose.connection, 'close', 'and told that the connection ends with it')
    t.equal(await server.exit, 0, 'and the process exits 0')
  },
)

t.test(
  'a keep-alive request in flight past the drain is answered with Connection: close, and the process exits 0',
  async (t) => {
    const server = await startServer({
      DATA_DIR: mkdtempSync(join(tmpdir(), 'blog-drain-')),
      DATABASE_URL: process.env.DATABASE_URL ?? '',
      JWT_SECRET: 'drain-test-secret-drain-test-secret-0123',
      DRAIN_PERIOD_MS: '2000',
      SHUTDOWN_TIMEOUT_MS: '60000',
    })
    const logged = (msg: string) => server.logs.some((entry) => entry.msg === msg)
    const { hostname, port } = new URL(server.url)
    const socket = connect(Number(port), hostname)
    t.teardown(() => socket.destroy())
    let received = ''
    socket.setEncoding('utf8')
    socket.on('data', (chunk: string) => (received += chunk))
    const body = JSON.stringify({ email: 'nobody@example.com', password: 'not the password' })
    // A keep-alive request whose body is half sent when SIGTERM comes, and finished after the drain.
    socket.write(
      `POST /login HTTP/1.1\r\nHost: test\r\nConnection: keep-alive\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 10)}`,
    )
    t.ok(await eventually(async () => logged('incoming request'), 30_000, 20), 'the server has the request')
    server.child.kill('SIGTERM')
    t.ok(await eventually(async () => logged('drain period over: closing the public port'), 60_000, 20))
    socket.write(body.slice(10))
    t.ok(await eventually(async () => /\r\n\r\n/.test(received), 30_000, 20), 'answered')
    t.match(received, /^HTTP\/1\.1 401 /, 'the request was served')
    t.match(received, /\r\nconnection: close\r\n/i, 'and its connection ends with the answer')
    t.equal(await server.exit, 0, 'so nothing holds the close open: exit 0, before SHUTDOWN_TIMEOUT_MS')
  },
)
