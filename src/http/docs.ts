// The contract as served: the document at GET /openapi.json and an interactive page at GET /docs.
// These two are outside the envelope: one is the contract itself, the other HTML.
import fastifySwagger from '@fastify/swagger'
import fastifySwaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'
import type { OpenApiDocument } from '../spec.ts'

export const DOCS_ROUTES: Record<string, string[]> = { '/openapi.json': ['GET', 'HEAD'], '/docs': ['GET', 'HEAD'] }

/**
 * `publicPath` is PUBLIC_URL's path ('' or '/blog'): behind a proxy serving the API under it, the
 * served contract's server and the page's asset links carry it, so that Try it out and the page's
 * scripts go through the proxy too.
 */
export async function registerDocs(app: FastifyInstance, spec: OpenApiDocument, publicPath: string) {
  const document = structuredClone(spec)
  const servers = (document as { servers?: { url: string }[] }).servers
  if (publicPath !== '') for (const server of servers ?? []) server.url = publicPath
  await app.register(fastifySwagger, { mode: 'static', specification: { document: document as never } })
  await app.register(fastifySwaggerUi, {
    routePrefix: '/docs',
    indexPrefix: publicPath,
    // Without validatorUrl: null, every visitor's browser sends the spec's address to
    // validator.swagger.io for a badge.
    uiConfig: { deepLinking: true, validatorUrl: null },
    // The page replaces the API's `default-src 'none'` (src/http/headers/browser-policy.ts) with one that
    // allows its own scripts, styles and inline script hashes, and nothing from another host (the
    // plugin's policy allows validator.swagger.io images and any https: style or font). Without
    // upgrade-insecure-requests: served over plain HTTP (npm start), the page would ask for its
    // scripts over HTTPS.
    staticCSP: true,
    // Try it out shows an image answer (getImage) as an <img> of a blob: URL the page made itself.
    transformStaticCSP: (header: string) =>
      header
        .replace(/\s*upgrade-insecure-requests;?/, '')
        .replace(/ (https:|validator\.swagger\.io)(?=[ ;])/g, '')
        .replace(/img-src ([^;]*);/, 'img-src $1 blob:;'),
  })
  app.get('/openapi.json', { schema: { hide: true } }, async (_request, reply) => {
    reply.header('cache-control', 'no-cache')
    return app.swagger()
  })
}
