// Unknown paths answer 404 ROUTE_NOT_FOUND; a known path with a method it does not have answers
// 405 METHOD_NOT_ALLOWED with an Allow header, so clients can tell a typo from a wrong verb.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { ApiError } from '../../errors/api-error.ts'
import { sendError } from './error-handler.ts'
import { shorten } from './shorten.ts'
import { listOperations } from '../../spec.ts'

interface PathMethods {
  path: string
  pattern: RegExp
  methods: Set<string>
}

function pathTable(extraRoutes: Record<string, string[]>): PathMethods[] {
  const byPath = new Map<string, Set<string>>()
  for (const { method, path } of listOperations()) {
    const methods = byPath.get(path) ?? new Set<string>()
    methods.add(method)
    if (method === 'GET') methods.add('HEAD')
    byPath.set(path, methods)
  }
  for (const [path, methods] of Object.entries(extraRoutes)) byPath.set(path, new Set(methods))
  return [...byPath].map(([path, methods]) => ({
    path,
    pattern: new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}/?$`),
    methods,
  }))
}

/** The answer to a path no operation has (on this port). */
export function routeNotFound(request: FastifyRequest): ApiError {
  const path = request.url.split('?', 1)[0]!
  return new ApiError(404, 'ROUTE_NOT_FOUND', `No route ${request.method} ${shorten(path, 100)}.`)
}

/**
 * `servedHere` says whether a path of the table is served on the port the request came in on: one
 * that is not is answered 404 like an unknown path, not 405, so the public port does not tell
 * that an internal operation exists (src/http/internal-listener.ts).
 */
export function installNotFoundHandler(
  app: FastifyInstance,
  extraRoutes: Record<string, string[]> = {},
  servedHere: (request: FastifyRequest, path: string) => boolean = () => true,
) {
  const table = pathTable(extraRoutes)
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?', 1)[0]!
    const match = table.find((entry) => entry.pattern.test(path) && servedHere(request, entry.path))
    // With its method allowed, the path itself was not routed (a trailing slash): not a 405.
    if (match && !match.methods.has(request.method)) {
      const allow = [...match.methods].sort().join(', ')
      return sendError(
        request,
        reply,
        new ApiError(405, 'METHOD_NOT_ALLOWED', `${request.method} is not allowed here; allowed: ${allow}.`, [], {
          allow,
        }),
      )
    }
    return sendError(request, reply, routeNotFound(request))
  })
}
