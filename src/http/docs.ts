// The contract as served: the document at GET /openapi.json and an interactive page at GET /docs.
// These two are outside the envelope: one is the contract itself, the other HTML.
import fastifySwagger from '@fastify/swagger'
import fastifySwaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'
import type { OpenApiDocument } from '../spec.ts'

export const DOCS_ROUTES: Record<string, string[]> = { '/openapi.json': ['GET', 'HEAD'], '/docs': ['GET', 'HEAD'] }

export async function registerDocs(app: FastifyInstance, spec: OpenApiDocument) {
  await app.register(fastifySwagger, { mode: 'static', specification: { document: structuredClone(spec) as never } })
  await app.register(fastifySwaggerUi, { routePrefix: '/docs', uiConfig: { deepLinking: true } })
  app.get('/openapi.json', { schema: { hide: true } }, async (_request, reply) => {
    reply.header('cache-control', 'no-cache')
    return app.swagger()
  })
}
