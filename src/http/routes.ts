// Every operation of the spec becomes a route through fastify-openapi-glue: the handler named by
// its operationId, its security enforced before the body is read, its schemas validated by ajv.
import openapiGlue from 'fastify-openapi-glue'
import type { FastifyInstance, onRequestHookHandler, RouteOptions } from 'fastify'
import { ApiError } from '../errors/api-error.ts'
import type { HandlerMap } from './operations.ts'
import { shorten } from './errors/shorten.ts'
import { authorize } from './security.ts'
import { drawsFromWriteBudget } from './limits/write-budget.ts'

/**
 * The write budget's hook, found on the app's services when a request comes (as authorize finds
 * its own): operations are registered before the services exist where a test builds a bare app.
 */
const spendWriteBudget = (app: FastifyInstance): onRequestHookHandler =>
  function (request, reply, done) {
    app.services.writeBudget.hook.call(this, request, reply, done)
  }
import { HTTP_METHODS, type OpenApiDocument, type OperationSpec } from '../spec.ts'

/** A request that announces no body bytes: no Content-Length above 0, no chunked framing. */
const sendsNoBody = (headers: { 'content-length'?: string; 'transfer-encoding'?: string }) =>
  headers['transfer-encoding'] === undefined &&
  (headers['content-length'] === undefined || headers['content-length'] === '0')

/**
 * 415 before the body is read when its media type is not one the operation's `requestBody`
 * declares. Fastify would parse any type it has a parser for (text/plain, multipart) and hand the
 * handler a body its schema never described. And 400 when a required body is missing altogether:
 * without a Content-Type no body schema applies, and the handler would meet `undefined`.
 */
function acceptMediaTypes(operation: OperationSpec): onRequestHookHandler | null {
  const requestBody = operation.requestBody as { content?: Record<string, unknown>; required?: boolean } | undefined
  const declared = Object.keys(requestBody?.content ?? {})
  if (declared.length === 0) return null
  return (request, _reply, done) => {
    const header = request.headers['content-type']
    if (header === undefined) {
      if (requestBody?.required === true && sendsNoBody(request.headers)) {
        done(
          new ApiError(400, 'VALIDATION_FAILED', 'The request does not match the API contract.', [
            { path: '/body', message: `a body is required (${declared.join(' or ')})`, code: 'required' },
          ]),
        )
        return
      }
      done()
      return
    }
    const mediaType = header.split(';')[0]!.trim().toLowerCase()
    if (!declared.includes(mediaType)) {
      done(
        new ApiError(
          415,
          'UNSUPPORTED_MEDIA_TYPE',
          `Content-Type ${shorten(mediaType, 100) || '(empty)'} is not accepted here; send ${declared.join(' or ')}.`,
        ),
      )
      return
    }
    done()
  }
}

/** The operations whose body is a multipart upload. */
const takesUploads = (operation: OperationSpec) =>
  Object.keys((operation.requestBody as { content?: Record<string, unknown> } | undefined)?.content ?? {}).includes(
    'multipart/form-data',
  )

/** A copy of the spec holding only the operations `keep` selects (components and the rest as they are). */
function specWith(spec: OpenApiDocument, keep: (operation: OperationSpec) => boolean): OpenApiDocument {
  const copy = structuredClone(spec)
  for (const [path, item] of Object.entries(copy.paths)) {
    for (const method of HTTP_METHODS) {
      const operation = (item as Record<string, OperationSpec | undefined>)[method]
      if (operation !== undefined && !keep(operation)) delete (item as Record<string, unknown>)[method]
    }
    if (!HTTP_METHODS.some((method) => method in item)) delete copy.paths[path]
  }
  return copy
}

type Responses = Record<string, { content?: Record<string, unknown> } | undefined>

/**
 * `spec` (a copy) with its answers described as JSON only. The glue counts every media type of the
 * spec, answers' included, as one a request may be parsed as, and warns at start-up for each that
 * has no parser (the feed's, the images'): false alarms that would hide a real one. Fastify never
 * uses those descriptions: an answer of another type is bytes the handler sends. A request body's
 * types stay, so a missing parser for one is still reported.
 */
function withJsonAnswersOnly(spec: OpenApiDocument): OpenApiDocument {
  const keepJson = (responses: Responses | undefined) => {
    for (const response of Object.values(responses ?? {})) {
      if (response?.content === undefined) continue
      for (const type of Object.keys(response.content)) if (type !== 'application/json') delete response.content[type]
      if (Object.keys(response.content).length === 0) delete response.content
    }
  }
  for (const item of Object.values(spec.paths)) {
    for (const method of HTTP_METHODS) {
      keepJson((item as Record<string, OperationSpec | undefined>)[method]?.responses as Responses | undefined)
    }
  }
  keepJson((spec as { components?: { responses?: Responses } }).components?.responses)
  return spec
}

/**
 * The upload operations get a context of their own with @fastify/multipart in it: the plugin adds
 * two async hooks (onRequest, onResponse) to every route of its context, which cost every other
 * request a few microseconds for nothing.
 */
export async function registerOperations(
  app: FastifyInstance,
  spec: OpenApiDocument,
  handlers: HandlerMap,
  registerUploads: (context: FastifyInstance) => Promise<void>,
) {
  const strings = new Map<string, string>()
  await app.register(async (uploads) => {
    await registerUploads(uploads)
    await registerGlue(uploads, spec, withJsonAnswersOnly(specWith(spec, takesUploads)), handlers, strings)
  })
  await app.register(async (rest) => {
    await registerGlue(
      rest,
      spec,
      withJsonAnswersOnly(specWith(spec, (operation) => !takesUploads(operation))),
      handlers,
      strings,
    )
  })
}

type ResponseSchemas = Record<string, { content?: Record<string, { schema?: unknown }> }>

/**
 * An answer described as JSON only is handed to Fastify as its schema, not as a map by media type:
 * with a map, Fastify looks the answer's Content-Type up on every answer to pick the serializer.
 * Every object we send is JSON, so the map never chose anything else (an object sent with another
 * type fails in Fastify before serializing); answers of other types keep their map.
 */
function jsonResponsesByStatus(route: RouteOptions) {
  const response = route.schema?.response as ResponseSchemas | undefined
  if (response === undefined) return
  const flat: Record<string, unknown> = {}
  for (const [status, answer] of Object.entries(response)) {
    const types = Object.keys(answer.content ?? {})
    const json = answer.content?.['application/json']?.schema
    flat[status] = types.length === 1 && json !== undefined ? json : answer
  }
  route.schema = { ...route.schema, response: flat }
}

/**
 * Replaces every string in `value` (objects and arrays, walked once each) with the copy `strings`
 * holds of it. fastify-openapi-glue gives each route a structuredClone of its schema, so every
 * string of the spec was held once per route using it: ErrorCode's description (5.7 KB), in every
 * error answer, 492 times (5 now, test/http/schema-strings.test.ts).
 */
function internStrings(value: unknown, strings: Map<string, string>, seen = new WeakSet<object>()): void {
  if (typeof value !== 'object' || value === null || seen.has(value)) return
  seen.add(value)
  const fields = value as Record<string, unknown>
  for (const key of Object.keys(fields)) {
    const item = fields[key]
    if (typeof item !== 'string') internStrings(item, strings, seen)
    else if (strings.has(item)) fields[key] = strings.get(item)
    else strings.set(item, item)
  }
}

async function registerGlue(
  app: FastifyInstance,
  spec: OpenApiDocument,
  part: OpenApiDocument,
  handlers: HandlerMap,
  strings: Map<string, string>,
) {
  app.addHook('onRoute', jsonResponsesByStatus)
  app.addHook('onRoute', (route) => internStrings(route.schema, strings))
  await app.register(openapiGlue, {
    // The glue resolves $refs in place: `part` is a copy of its own.
    specification: part,
    operationResolver(operationId: string, method: string, openapiPath: string) {
      // Each handler is typed for its own operation; ajv guarantees those types at run time, so
      // here, at the glue's untyped boundary, they are plain route handlers.
      const handler = (handlers as unknown as Record<string, RouteOptions['handler'] | undefined>)[operationId]
      // The glue would register a route answering 500 "not implemented"; refuse to start instead.
      if (handler === undefined) throw new Error(`No handler for operationId "${operationId}"`)
      const operation = spec.paths[openapiPath]![method.toLowerCase() as 'get'] as OperationSpec
      // The caller first (401 before 415), then the body's type, then the caller's write budget
      // (429), all before any byte of the body is read. An operation open to all, without a
      // body, has none of them.
      const onRequest = [
        authorize(app, operation.security ?? spec.security ?? []),
        acceptMediaTypes(operation),
        drawsFromWriteBudget(operation) ? spendWriteBudget(app) : null,
      ].filter((hook) => hook !== null)
      // Partial route options: the glue adds method, url and schema itself (its types want them all).
      return {
        handler,
        ...(onRequest.length > 0 ? { onRequest } : {}),
        config: { operationId },
      } as Partial<RouteOptions> as RouteOptions
    },
  })
}
