// A small load balancer for benchmarks (npm run bench:shutdown), in the bench's own process, made
// to behave like a plain nginx upstream with active health checks and retries off:
// - every BENCH_PROBE_MS it asks each upstream's readiness (GET <internal>/health, a connection of
//   its own, a timeout): 200 puts it in rotation, anything else (503, an error, no answer) takes it
//   out; a new upstream starts out of rotation;
// - each request goes to the next upstream in rotation (round-robin), once, over a keep-alive agent
//   of that upstream's (nginx's `keepalive`); an upstream that answers `Connection: close` has its
//   socket dropped after that answer (Node's http.Agent does so; test/scripts/balancer.test.ts);
// - any upstream error before the answer's head is a 502 to the client, none in rotation a 503,
//   both marked with the header `x-balancer-error` so that the bench can tell them from the
//   service's own; an error after the head cuts the client's connection.
// It forwards method, path, headers (hop-by-hop ones aside; X-Forwarded-For added) and the body,
// and streams the answer back. No retry, ever: what it reports is what a client would have seen.
import { once } from 'node:events'
import { Agent, createServer, request, type IncomingHttpHeaders, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { pipeline } from 'node:stream'

/** Headers about one connection, which a proxy does not pass on (RFC 9110, 7.6.1). */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
])

export const BALANCER_ERROR_HEADER = 'x-balancer-error'

export interface BalancerOptions {
  probeIntervalMs: number
  /** A probe still unanswered after this counts as a failure. */
  probeTimeoutMs: number
}

export interface RotationEvent {
  at: number
  upstream: string
  ready: boolean
  /** The probe's status, or its error. */
  reason: string
}

interface Upstream {
  name: string
  url: URL
  readinessUrl: string
  agent: Agent
  ready: boolean
  probing: boolean
}

export interface Balancer {
  url: string
  /** Adds an upstream, out of rotation until a probe finds it ready. */
  add(name: string, url: string, internalUrl: string): void
  /** Stops probing and sending to it, and closes its kept connections. */
  remove(name: string): void
  /** Resolves once the upstream's rotation state is `ready` (at once if it is already). */
  until(name: string, ready: boolean): Promise<void>
  /** Every change of rotation, in order. */
  events: RotationEvent[]
  /** Requests forwarded, by upstream. */
  forwarded(): Record<string, number>
  close(): Promise<void>
}

/** Copies `headers` without the hop-by-hop ones, nor those the Connection header names. */
function endToEnd(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const named = new Set(
    String(headers.connection ?? '')
      .split(',')
      .map((name) => name.trim().toLowerCase()),
  )
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name) && !named.has(name)))
}

function probe(upstream: Upstream, timeoutMs: number): Promise<string> {
  return new Promise((resolve) => {
    const req = request(upstream.readinessUrl, { agent: false, timeout: timeoutMs }, (res) => {
      res.resume()
      res.on('end', () => resolve(String(res.statusCode)))
      res.on('error', (error) => resolve(error.message))
    })
    req.on('timeout', () => req.destroy(new Error('probe timed out')))
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message))
    req.end()
  })
}

export async function startBalancer(options: BalancerOptions): Promise<Balancer> {
  const upstreams: Upstream[] = []
  const events: RotationEvent[] = []
  const waiters: (() => void)[] = []
  const counts: Record<string, number> = {}
  let turn = 0

  async function check(upstream: Upstream) {
    if (upstream.probing) return
    upstream.probing = true
    const reason = await probe(upstream, options.probeTimeoutMs)
    upstream.probing = false
    const ready = reason === '200'
    if (ready === upstream.ready || !upstreams.includes(upstream)) return
    upstream.ready = ready
    events.push({ at: Date.now(), upstream: upstream.name, ready, reason })
    for (const wake of waiters.splice(0)) wake()
  }
  const prober = setInterval(() => upstreams.forEach((upstream) => void check(upstream)), options.probeIntervalMs)

  const server = createServer((req, res) => {
    const inRotation = upstreams.filter((upstream) => upstream.ready)
    if (inRotation.length === 0) {
      req.resume()
      res.writeHead(503, { [BALANCER_ERROR_HEADER]: 'no upstream in rotation', 'content-type': 'text/plain' })
      res.end('no upstream in rotation\n')
      return
    }
    const upstream = inRotation[turn++ % inRotation.length]!
    counts[upstream.name] = (counts[upstream.name] ?? 0) + 1
    const from = req.socket.remoteAddress ?? ''
    const forwardedFor = req.headers['x-forwarded-for'] ? `${req.headers['x-forwarded-for']}, ${from}` : from
    const upstreamReq = request({
      host: upstream.url.hostname,
      port: upstream.url.port,
      method: req.method,
      path: req.url,
      agent: upstream.agent,
      headers: { ...endToEnd(req.headers), 'x-forwarded-for': forwardedFor },
    })
    upstreamReq.on('response', (upstreamRes: IncomingMessage) => {
      res.writeHead(upstreamRes.statusCode!, upstreamRes.statusMessage, endToEnd(upstreamRes.headers))
      // An error from here on cuts the client's connection: the head is gone already.
      pipeline(upstreamRes, res, () => {})
    })
    upstreamReq.on('error', (error: NodeJS.ErrnoException) => {
      if (res.headersSent || res.destroyed) return void res.destroy()
      const reason = `${upstream.name}: ${error.code ?? error.message}`
      res.writeHead(502, { [BALANCER_ERROR_HEADER]: reason, 'content-type': 'text/plain' })
      res.end(`${reason}\n`)
    })
    // The client gone: so is the request upstream.
    res.on('close', () => {
      if (!res.writableFinished) upstreamReq.destroy()
    })
    req.pipe(upstreamReq)
  })
  // The clients' connections outlive the upstreams': no idle cut between two of their requests.
  server.keepAliveTimeout = 60_000
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo

  return {
    url: `http://127.0.0.1:${port}`,
    events,
    add(name, url, internalUrl) {
      const agent = new Agent({ keepAlive: true, maxFreeSockets: 256 })
      upstreams.push({
        name,
        url: new URL(url),
        readinessUrl: `${internalUrl}/health`,
        agent,
        ready: false,
        probing: false,
      })
    },
    remove(name) {
      const index = upstreams.findIndex((upstream) => upstream.name === name)
      if (index < 0) return
      const [upstream] = upstreams.splice(index, 1)
      upstream!.agent.destroy()
    },
    until(name, ready) {
      return new Promise<void>((resolve) => {
        const test = () => {
          if (upstreams.some((upstream) => upstream.name === name && upstream.ready === ready)) resolve()
          else waiters.push(test)
        }
        test()
      })
    },
    forwarded: () => ({ ...counts }),
    async close() {
      clearInterval(prober)
      for (const upstream of upstreams.splice(0)) upstream.agent.destroy()
      server.closeAllConnections()
      server.close()
      await once(server, 'close')
    },
  }
}
