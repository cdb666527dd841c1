// Draining on shutdown. From start() on, readiness (getHealth) answers 503, so that load balancers
// stop sending, while the public port goes on serving: every answer then carries
// `Connection: close` (those of requests already in flight too), so that each keep-alive connection
// ends after its next answer instead of being cut while a request may be on its way (a proxy that
// does not retry would see a 502, and a POST caught that way is lost to its client).
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
