// Draining on shutdown. From start() on, readiness (getHealth) answers 503, so that load balancers
// stop sending, while the public port goes on serving: every answer then carries
// `Connection: close` (those of requests already in flight too), so that each keep-alive connection
// ends after its next answer instead of being cut while a request may be on its way (a proxy that
// does not retry would see a 502, and a POST caught that way is lost to its client).
import { Server } from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
import type { FastifyInstance } from 'fastify'

export interface Drain {
  readonly draining: boolean
  start(): void
}

export function registerDrain(app: FastifyInstance): Drain {
  let draining = false
  // One comparison per answer until the drain; registered before lingering close, which closes
  // answers with Connection: close politely when their body has not been read.
  app.addHook('onSend', (_request, reply, _payload, done) => {
    if (draining) reply.header('connection', 'close')
    done()
  })
  return {
    get draining() {
      return draining
    },
    start() {
      draining = true
    },
  }
}

/** How long a connection accepted just before the port closed may take to deliver its request. */
export const ACCEPTED_GRACE_MS = 1000

/**
 * Closes the app: stops accepting at once, and closes the connections left idle only after
 * ACCEPTED_GRACE_MS, then as each goes idle. Node's own close closes every idle connection at
 * once, those it has just accepted included, whose request may be on its way: the client sees a
 * reset, and a proxy (nginx) does not resend a POST it has sent. After the grace the listener has
 * been closed long enough that a connection still idle carries no request.
 */
export async function closeGently(app: FastifyInstance, graceMs = ACCEPTED_GRACE_MS) {
  const server = app.server
  const closeIdle = Server.prototype.closeIdleConnections.bind(server)
  server.closeIdleConnections = () => {}
  const closing = app.close()
  await Promise.race([closing, sleep(graceMs)])
  closeIdle()
  const idleCloser = setInterval(closeIdle, 100)
  try {
    await closing
  } finally {
    clearInterval(idleCloser)
  }
}
