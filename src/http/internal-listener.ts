// The internal listener: the probes, the metrics and the docs on a port of their own, which the
// operator keeps off the internet (loopback by default, INTERNAL_HOST/INTERNAL_PORT). It routes
// into the same Fastify instance as the public port, so the operations are the ones the spec
// describes, with the same hooks and envelope; which port a request came in on decides whether it
// is served there. The public port serves the internal operations only where
// INTERNAL_ON_PUBLIC_PORT says so (outside production, by default), and the docs unless PUBLIC_DOCS
// is false; the internal listener serves nothing else.
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { ListenerConfig } from '../config/listeners.ts'
import { sendError } from './errors/error-handler.ts'
import { routeNotFound } from './errors/not-found.ts'

/** The operations' paths served on the internal listener (the spec's getHealth, getLiveness, getMetrics). */
export const INTERNAL_PATHS: ReadonlySet<string> = new Set(['/health', '/health/live', '/metrics'])

const ARRIVED_INTERNALLY = Symbol('arrivedInternally')
type Marked = IncomingMessage & { [ARRIVED_INTERNALLY]?: true }

const isDocs = (route: string) => route === '/openapi.json' || route === '/docs' || route.startsWith('/docs/')

/** Whether the port a request came in on serves `route` (a route's or the spec's path). */
export function servedOnItsPort(config: Pick<ListenerConfig, 'internalOnPublicPort' | 'publicDocs'>) {
  const servedOnPublicPort = (route: string) =>
    INTERNAL_PATHS.has(route) ? config.internalOnPublicPort : !isDocs(route) || config.publicDocs
  const servedInternally = (route: string) => INTERNAL_PATHS.has(route) || isDocs(route)
  return (request: FastifyRequest, route: string) =>
    (request.raw as Marked)[ARRIVED_INTERNALLY] === true ? servedInternally(route) : servedOnPublicPort(route)
}

/** Answers 404 to what the port a request came in on does not serve, as for an unknown path. */
export function registerListenerRules(
  app: FastifyInstance,
  config: Pick<ListenerConfig, 'internalOnPublicPort' | 'publicDocs'>,
) {
  const served = servedOnItsPort(config)
  app.addHook('onRequest', (request, reply, done) => {
    // An unknown path has no route: the not-found handler answers it, on either port, alike.
    const route = request.routeOptions.url
    if (route !== undefined && !served(request, route)) return sendError(request, reply, routeNotFound(request))
    done()
  })
}

/** Starts the internal listener; closed by the caller, after the public port. */
export async function listenInternally(
  app: FastifyInstance,
  config: Pick<ListenerConfig, 'internalHost' | 'internalPort'> & { requestTimeoutMs: number },
): Promise<Server> {
  const server = createServer((request: Marked, response) => {
    request[ARRIVED_INTERNALLY] = true
    app.routing(request, response)
  })
  server.requestTimeout = config.requestTimeoutMs
  server.headersTimeout = config.requestTimeoutMs
  // A malformed request gets no answer here: only the operator's own systems call this port.
  server.on('clientError', (_error, socket) => socket.destroy())
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE'
          ? new Error(
              `INTERNAL_PORT ${config.internalPort} on ${config.internalHost} is in use: ` +
                'give each instance on a host an INTERNAL_PORT of its own',
            )
          : error,
      ),
    )
    server.listen(config.internalPort, config.internalHost, () => resolve())
  })
  const { address, port } = server.address() as AddressInfo
  const shown = address.includes(':') ? `[${address}]` : address
  app.log.info(`Internal listener (probes, metrics, docs) at http://${shown}:${port}`)
  return server
}

export async function closeInternally(server: Server) {
  await new Promise<void>((resolve) => {
    server.close(() => resolve())
    server.closeAllConnections()
  })
}
