// Draining on shutdown. From start() on, readiness (getHealth) answers 503, so that load balancers
// stop sending, while the public port goes on serving: every answer then carries
// `Connection: close`, so that each keep-alive connection ends after its next answer instead of
// being cut while a request may be on its way (a proxy that does not retry would see a 502, and a
// POST caught that way is lost to its client). Costs nothing before start().
import type { Server } from 'node:http'

export interface Drain {
  readonly draining: boolean
  start(): void
}

export function makeDrain(server: Server): Drain {
  let draining = false
  return {
    get draining() {
      return draining
    },
    start() {
      if (draining) return
      draining = true
      // Before Fastify's own listener, which may answer synchronously.
      server.prependListener('request', (_request, response) => response.setHeader('connection', 'close'))
    },
  }
}
