// Stopping without failing a request, in two phases.
//
// Draining (start(), at SIGTERM): readiness (getHealth) answers 503 at once, so that load
// balancers that follow it stop sending; the public port serves as before, keep-alive included,
// for DRAIN_PERIOD_MS. Keeping connections alive matters to a proxy that does not follow readiness
// (nginx): it goes on reusing the connections it holds instead of opening new ones, so that few
// or none are being opened when the port closes. (Closing a listening socket resets the
// connections still in its accept queue, whose requests a proxy has sent already: it answers 502
// and never resends a POST.)
//
// Closing (closeGently, after the drain): the port stops accepting, so a proxy's new connections
// are refused, which it may safely retry elsewhere; every answer from then on carries
// `Connection: close`, those of requests already in flight too, so each connection ends after its
// next answer; connections left idle are given time to be closed by their client (a proxy closes
// its idle connections after its own keep-alive timeout) before the rest are closed.
import { Server } from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
import type { FastifyInstance } from 'fastify'

export interface Drain {
  /** From SIGTERM on: readiness answers 503. */
  readonly draining: boolean
  start(): void
}

interface Closable {
  draining: boolean
  /** From the close on: every answer ends its connection. */
  closing: boolean
  start(): void
}

export function registerDrain(app: FastifyInstance): Drain {
  const drain: Closable = {
    draining: false,
    closing: false,
    start() {
      this.draining = true
    },
  }
  // One comparison per answer; registered before lingering close, which closes answers with
  // Connection: close politely when their body has not been read.
  app.addHook('onSend', (_request, reply, _payload, done) => {
    if (drain.closing) reply.header('connection', 'close')
    done()
  })
  return drain
}

/**
 * Closes the app: stops accepting at once; closes connections as they end their answers; leaves
 * idle ones `idleWaitMs` to be closed by their clients, then closes the rest. (Node's own close
 * would close every idle connection at once, those just accepted with a request on its way too.)
 */
export async function closeGently(app: FastifyInstance, drain: Drain, idleWaitMs: number) {
  const server = app.server
  const closeIdle = Server.prototype.closeIdleConnections.bind(server)
  server.closeIdleConnections = () => {}
  ;(drain as Closable).closing = true
  const closing = app.close()
  await Promise.race([closing, sleep(idleWaitMs)])
  closeIdle()
  const idleCloser = setInterval(closeIdle, 100)
  try {
    await closing
  } finally {
    clearInterval(idleCloser)
  }
}
