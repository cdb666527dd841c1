// The load balancer of npm run bench:shutdown (scripts/bench/balancer.ts) is honest: an upstream
// enters the rotation only once its readiness answers 200 and leaves it on a 503; requests are
// forwarded whole (method, path, headers, body; X-Forwarded-For added) and answered as the upstream
// answered; an upstream's `Connection: close` ends that upstream connection; an upstream error is a
// 502 of the balancer's own, and the request is never sent twice.
import { once } from 'node:events'
import { createServer, request, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import { BALANCER_ERROR_HEADER, startBalancer } from '../../scripts/bench/balancer.ts'

const PROBE_MS = 20

interface Seen {
  method: string
  url: string
  headers: IncomingHttpHeaders
  body: string
  connection: number
}

/** An upstream serving its own readiness at /health; `mode` says how it answers the rest. */
async function upstream(t: Test) {
  const state = { ready: true, mode: 'ok' as 'ok' | 'close' | 'reset', seen: [] as Seen[], connections: 0 }
  const server = createServer((req, res) => {
    if (req.url === '/health') return void res.writeHead(state.ready ? 200 : 503).end()
    let body = ''
    req.on('data', (chunk) => (body += chunk))
    req.on('end', () => {
      const connection = (req.socket as unknown as { id: number }).id
      state.seen.push({ method: req.method!, url: req.url!, headers: req.headers, body, connection })
      if (state.mode === 'reset') return void req.socket.destroy()
      const headers: Record<string, string> = { 'content-type': 'text/plain', 'x-upstream': 'yes' }
      if (state.mode === 'close') headers.connection = 'close'
      res.writeHead(201, headers).end(`echo ${body}`)
    })
  })
  server.on('connection', (socket) => Object.assign(socket, { id: ++state.connections }))
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(() => (server.closeAllConnections(), server.close()))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return { state, url }
}

function send(url: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  return new Promise<{ status: number; headers: IncomingHttpHeaders; body: string }>((resolve, reject) => {
    const req = request(url, { method: options.method ?? 'GET', headers: options.headers, agent: false }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk) => (body += chunk))
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }))
    })
    req.on('error', reject)
    req.end(options.body)
  })
}

t.test('rotation follows the readiness probes', async (t) => {
  const balancer = await startBalancer({ probeIntervalMs: PROBE_MS, probeTimeoutMs: 1000 })
  t.teardown(() => balancer.close())
  const a = await upstream(t)
  const b = await upstream(t)
  a.state.ready = false
  balancer.add('a', a.url, a.url)
  const none = await send(`${balancer.url}/x`)
  t.equal(none.status, 503, 'a new upstream is out of rotation until a probe finds it ready')
  t.ok(none.headers[BALANCER_ERROR_HEADER])
  a.state.ready = true
  await balancer.until('a', true)
  balancer.add('b', b.url, b.url)
  await balancer.until('b', true)
  for (let n = 0; n < 4; n++) t.equal((await send(`${balancer.url}/x`)).status, 201)
  t.same([a.state.seen.length, b.state.seen.length], [2, 2], 'round-robin')

  a.state.ready = false
  await balancer.until('a', false)
  for (let n = 0; n < 4; n++) await send(`${balancer.url}/x`)
  t.same([a.state.seen.length, b.state.seen.length], [2, 6], 'a 503 takes an upstream out of rotation')
  t.same(
    balancer.events.map(({ upstream, ready, reason }) => [upstream, ready, reason]),
    [
      ['a', true, '200'],
      ['b', true, '200'],
      ['a', false, '503'],
    ],
  )
})

t.test('forwards the whole request once, streams the answer, honours Connection: close', async (t) => {
  const balancer = await startBalancer({ probeIntervalMs: PROBE_MS, probeTimeoutMs: 1000 })
  t.teardown(() => balancer.close())
  const a = await upstream(t)
  balancer.add('a', a.url, a.url)
  await balancer.until('a', true)

  const answer = await send(`${balancer.url}/posts/1/comments?x=1`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer t', 'keep-alive': 'timeout=5' },
    body: '{"body":"hello"}',
  })
  t.equal(answer.status, 201)
  t.equal(answer.body, 'echo {"body":"hello"}')
  t.equal(answer.headers['x-upstream'], 'yes', "the upstream's headers come back")
  const [seen] = a.state.seen
  t.match(seen, { method: 'POST', url: '/posts/1/comments?x=1', body: '{"body":"hello"}' })
  t.match(seen!.headers, {
    'content-type': 'application/json',
    authorization: 'Bearer t',
    'x-forwarded-for': '127.0.0.1',
  })
  t.notOk(seen!.headers['keep-alive'], 'hop-by-hop headers stay behind')

  await send(`${balancer.url}/again`)
  t.equal(a.state.seen[1]!.connection, seen!.connection, 'upstream connections are kept alive')
  a.state.mode = 'close'
  await send(`${balancer.url}/closing`)
  a.state.mode = 'ok'
  await send(`${balancer.url}/after`)
  t.equal(a.state.seen[2]!.connection, seen!.connection)
  t.not(a.state.seen[3]!.connection, seen!.connection, 'after Connection: close, a new upstream connection')

  a.state.mode = 'reset'
  const failed = await send(`${balancer.url}/lost`, { method: 'POST', body: 'x' })
  t.equal(failed.status, 502, "an upstream's error is the balancer's 502")
  t.match(failed.headers[BALANCER_ERROR_HEADER], /^a: ECONNRESET/)
  t.equal(a.state.seen.filter((each) => each.url === '/lost').length, 1, 'sent once: no retry')
})
