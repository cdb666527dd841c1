// Every response the tests receive, checked against the spec for its operation and status: the
// status must be one the operation lists (`default` stands for 5xx only), the content type one
// it lists, the JSON body (or a text body's text) valid against its schema, documented headers
// present when required and valid when sent; 204/304 have no body. Because fast-json-stringify drops undeclared fields
// and coerces values to the declared types, the JSON a handler returns is checked too, before
// serialization: a field of the wrong type or a missing required field is caught at its source.
import { drawsFromWriteBudget } from '../../src/http/limits/write-budget.ts'
import { listOperations, type OperationSpec } from '../../src/spec.ts'
import { specSchemas, type Json } from './spec-schemas.ts'

export interface SeenResponse {
  method: string
  /** The request URL: path and query. */
  url: string
  status: number
  headers: Record<string, string | string[] | number | undefined>
  body: Buffer
}

export class ContractViolation extends Error {
  constructor(readonly problems: string[]) {
    super(`response breaks the contract:\n  ${problems.join('\n  ')}`)
    this.name = 'ContractViolation'
  }
}

/** Paths served outside the contract: the contract itself and its HTML page. */
const UNDOCUMENTED = /^\/(openapi\.json|docs)(\/|$)/

/** As the router matches: a trailing slash is another path (answered 404 ROUTE_NOT_FOUND). */
const pathPattern = (path: string) =>
  new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`)

export interface CheckerOptions {
  /** A 500 is a bug, so it fails the test that met it, however well it keeps the envelope; only a test
   *  that provokes one on purpose (an unexpected exception) says it expects them. */
  internalErrorsExpected?: boolean
}

export function makeContractChecker({ internalErrorsExpected = false }: CheckerOptions = {}) {
  const schemas = specSchemas()
  const { deref, compile } = schemas
  const routes = listOperations(schemas.spec).map((entry) => ({ ...entry, pattern: pathPattern(entry.path) }))
  const byOperationId = new Map(routes.map((route) => [route.operation.operationId, route.operation]))
  const errorEnvelope = { $ref: '#/components/schemas/ErrorEnvelope' }

  const schemaErrors = (where: string, schema: Json, value: unknown) => {
    const validate = compile(schema)
    return validate(value)
      ? []
      : (validate.errors ?? []).map(
          (error) => `${where}: ${error.instancePath || '/'} ${error.message} ${JSON.stringify(error.params)}`,
        )
  }

  /** The documented response for a status: its own entry, else `NXX`, else `default` for 5xx. */
  function responseFor(operation: OperationSpec, status: number): Json | undefined {
    const { responses } = operation as { responses: Record<string, Json> }
    const listed =
      responses[String(status)] ??
      responses[`${Math.floor(status / 100)}XX`] ??
      (status >= 500 ? responses.default : undefined)
    return listed && deref(listed)
  }

  function checkHeaders(where: string, documented: Record<string, Json>, headers: SeenResponse['headers']) {
    const problems: string[] = []
    for (const [name, header] of Object.entries(documented).map(([name, header]) => [name, deref(header)] as const)) {
      const raw = headers[name.toLowerCase()]
      if (raw === undefined) {
        if (header.required) problems.push(`${where}: required header ${name} is missing`)
        continue
      }
      const schema = header.schema as Json
      const text = Array.isArray(raw) ? raw.join(', ') : String(raw)
      const value = schema.type === 'integer' || schema.type === 'number' ? Number(text) : text
      problems.push(...schemaErrors(`${where} header ${name}`, schema, value))
    }
    return problems
  }

  function checkBody(where: string, method: string, content: Record<string, Json> | undefined, seen: SeenResponse) {
    if (content === undefined || method === 'HEAD') {
      return seen.body.length > 0 && method !== 'HEAD'
        ? [`${where}: documented without a body, but sent ${seen.body.length} bytes`]
        : []
    }
    const mediaType = String(seen.headers['content-type'] ?? '')
      .split(';')[0]!
      .trim()
      .toLowerCase()
    const media = content[mediaType]
    if (media === undefined)
      return [`${where}: content type "${mediaType}" is not documented (${Object.keys(content).join(', ')})`]
    if (mediaType !== 'application/json') {
      // Binary bodies (image bytes) are checked by content type only; text (the Atom feed, the
      // metrics) as UTF-8 against its schema, which bounds it.
      const schema = media.schema as Json | undefined
      if (schema === undefined || deref(schema).format === 'binary') return []
      let text: string
      try {
        text = new TextDecoder('utf-8', { fatal: true }).decode(seen.body)
      } catch {
        return [`${where}: a ${mediaType} body that is not UTF-8`]
      }
      return schemaErrors(`${where} body`, schema, text)
    }
    let body: unknown
    try {
      body = JSON.parse(seen.body.toString('utf8'))
    } catch {
      return [`${where}: body is not JSON`]
    }
    return schemaErrors(`${where} body`, media.schema as Json, body)
  }

  /** Problems with one response, as seen by the client; empty when it keeps the contract. */
  function checkResponse(seen: SeenResponse): string[] {
    const method = seen.method.toUpperCase()
    const path = seen.url.split('?', 1)[0]!
    if (UNDOCUMENTED.test(path)) return []
    if (seen.status === 500 && !internalErrorsExpected) {
      return [
        `${method} ${path} → 500: an internal error is a bug (the server's log says which); body ${seen.body.toString('utf8').slice(0, 300)}`,
      ]
    }
    const route = routes.find(
      (entry) => entry.method === (method === 'HEAD' ? 'GET' : method) && entry.pattern.test(path),
    )
    const where = `${method} ${path} → ${seen.status}${route ? ` (${route.operation.operationId})` : ''}`
    if (!route) {
      // A CORS preflight is the browser's protocol (the Fetch standard), answered by @fastify/cors
      // before any operation: an empty 204 that grants access, not part of the contract.
      if (method === 'OPTIONS' && seen.status === 204 && seen.headers['access-control-allow-origin'] !== undefined) {
        return seen.body.length > 0 ? [`${where}: a CORS preflight answered with a body`] : []
      }
      // No operation: the not-found handler's 404/405, or an error raised before routing.
      if (seen.status < 400) return [`${where}: answered ${seen.status} outside every documented operation`]
      return checkBody(where, method, { 'application/json': { schema: errorEnvelope } }, seen)
    }
    const response = responseFor(route.operation, seen.status)
    if (!response) return [`${where}: status ${seen.status} is not documented for ${route.operation.operationId}`]
    return [
      ...checkHeaders(where, (response.headers ?? {}) as Record<string, Json>, seen.headers),
      ...checkBody(where, method, response.content as Record<string, Json> | undefined, seen),
      ...budgetFieldsOf(where, route.operation, seen),
    ]
  }

  /**
   * The write budget's fields are not `required` in the spec (an API token's own 429 comes before
   * its owner is known), but every success of a budgeted operation carries both, as the spec says.
   */
  function budgetFieldsOf(where: string, operation: OperationSpec, seen: SeenResponse): string[] {
    if (!drawsFromWriteBudget(operation) || seen.status >= 300) return []
    return ['RateLimit', 'RateLimit-Policy']
      .filter((name) => seen.headers[name.toLowerCase()] === undefined)
      .map((name) => `${where}: a success of a budgeted write without ${name}`)
  }

  /** Problems with what a handler returned for `status`, before the serializer could hide them. */
  function checkHandlerResult(operationId: string, status: number, value: unknown): string[] {
    const operation = byOperationId.get(operationId)
    if (operation === undefined || value === undefined || Buffer.isBuffer(value)) return []
    const schema = ((responseFor(operation, status)?.content ?? {}) as Record<string, Json>)['application/json']
      ?.schema as Json | undefined
    const where = `handler ${operationId} → ${status}`
    if (schema === undefined) return [`${where}: returned a JSON body where the spec documents none`]
    // What JSON would carry (Dates become strings), as the serializer sees it. A string is JSON
    // already (a cached post): Fastify sends it as it is, with no serializer to fix it up.
    const json = typeof value === 'string' ? JSON.parse(value) : JSON.parse(JSON.stringify(value))
    return schemaErrors(`${where} returned`, schema, json)
  }

  return { checkResponse, checkHandlerResult }
}

export type ContractChecker = ReturnType<typeof makeContractChecker>
