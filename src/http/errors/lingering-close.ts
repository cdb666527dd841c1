// Lingering close, as nginx does it: a request refused before its body was read whole (401, 403,
// 404, 415 or 413 on an upload) is answered with `Connection: close` (src/http/errors/error-handler.ts),
// and Node then closes the socket at once. Clients that send their whole body before they read
// the answer (Node's fetch, so most generated SDKs) then fail with EPIPE or ECONNRESET instead of
// seeing it: the bytes still on their way make the closed socket reset the connection. So after
// such an answer the server half-closes (its FIN follows the answer), reads and discards the rest
// of the body, and closes once the body has ended, or LINGERING_CLOSE_BYTES more have come, or
// LINGERING_CLOSE_MS have passed, whichever is first. A body declared longer than the byte bound
// is closed at once, as before: nobody would read the answer, and it is not worth the traffic.
// At most LINGERING_CLOSE_MAX_SOCKETS sockets drain at once: each holds a connection (and its
// buffers) for up to LINGERING_CLOSE_MS, and anyone can open hundreds; past the cap a refusal
// closes its connection at once, as before lingering close.
import type { FastifyInstance } from 'fastify'
import type { IncomingMessage } from 'node:http'
import type { Socket } from 'node:net'
import type { Config } from '../../config.ts'

type Limits = Pick<Config, 'lingeringCloseBytes' | 'lingeringCloseMs' | 'lingeringCloseMaxSockets'>

/** Sockets already draining: an answer sent twice (an error in a later hook) must not drain twice. */
const draining = new WeakSet<Socket>()

/**
 * Starts reading and discarding the rest of the body now, while the answer is being written, and
 * makes Node's close after the answer wait for the body's end (or the bounds) before closing.
 */
function drainThenClose(
  request: IncomingMessage,
  socket: Socket,
  limits: Pick<Limits, 'lingeringCloseBytes' | 'lingeringCloseMs'>,
) {
  let drained = 0
  let answered = false
  let done = false
  let timer: NodeJS.Timeout | undefined
  // What Node does after an answer with Connection: close: end our side, then destroy the socket.
  const closeNow = socket.destroySoon.bind(socket)
  const finish = () => {
    if (done) return
    done = true
    clearTimeout(timer)
    request.removeListener('data', count)
    request.pause()
    if (answered) closeNow()
  }
  const count = (chunk: Buffer) => {
    drained += chunk.length
    if (drained > limits.lingeringCloseBytes) finish()
  }
  // The upload's reader may have piped the body elsewhere and paused it: the rest is only counted.
  request.unpipe()
  request.on('data', count)
  request.once('end', finish)
  request.once('error', finish)
  request.resume()
  // Node's server calls destroySoon on this socket once the answer is sent: for this socket it
  // means send our FIN after the answer and keep reading until the body ends or a bound is hit.
  socket.destroySoon = () => {
    answered = true
    if (done) return closeNow()
    socket.end()
    timer = setTimeout(finish, limits.lingeringCloseMs)
    timer.unref()
  }
  socket.once('close', () => clearTimeout(timer))
}

export function registerLingeringClose(app: FastifyInstance, limits: Limits) {
  if (limits.lingeringCloseMs === 0 || limits.lingeringCloseBytes === 0 || limits.lingeringCloseMaxSockets === 0) return
  /** Sockets of this app draining now. */
  let drainingNow = 0
  app.addHook('onSend', (request, reply, _payload, done) => {
    const raw = request.raw
    // Injected requests have no `complete`; answers that keep the connection read the body anyway.
    if (raw.complete !== false || String(reply.getHeader('connection')).toLowerCase() !== 'close') return done()
    const declared = Number(raw.headers['content-length'])
    if (declared > limits.lingeringCloseBytes) return done()
    if (draining.has(raw.socket) || drainingNow >= limits.lingeringCloseMaxSockets) return done()
    draining.add(raw.socket)
    drainingNow++
    raw.socket.once('close', () => drainingNow--)
    drainThenClose(raw, raw.socket, limits)
    done()
  })
}
