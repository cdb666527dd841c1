// Every operation of the spec becomes a route through fastify-openapi-glue: the handler named by
// its operationId, its security enforced before the body is read, its schemas validated by ajv.
import openapiGlue from 'fastify-openapi-glue'
import type { FastifyInstance, RouteOptions } from 'fastify'
import type { HandlerMap } from './operations.ts'
import { authorize } from './security.ts'
import type { OpenApiDocument, OperationSpec } from '../spec.ts'

export async function registerOperations(app: FastifyInstance, spec: OpenApiDocument, handlers: HandlerMap) {
  await app.register(openapiGlue, {
    // The glue resolves $refs in place; it gets its own copy.
    specification: structuredClone(spec),
    operationResolver(operationId: string, method: string, openapiPath: string) {
      // Each handler is typed for its own operation; ajv guarantees those types at run time, so
      // here, at the glue's untyped boundary, they are plain route handlers.
      const handler = (handlers as unknown as Record<string, RouteOptions['handler'] | undefined>)[operationId]
      // The glue would register a route answering 500 "not implemented"; refuse to start instead.
      if (handler === undefined) throw new Error(`No handler for operationId "${operationId}"`)
      const operation = spec.paths[openapiPath]![method.toLowerCase() as 'get'] as OperationSpec
      // Partial route options: the glue adds method, url and schema itself (its types want them all).
      return {
        handler,
        onRequest: authorize(app, operation.security ?? spec.security ?? []),
        config: { operationId },
      } as Partial<RouteOptions> as RouteOptions
    },
  })
}
