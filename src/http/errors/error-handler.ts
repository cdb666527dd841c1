// One place that turns every failure into the envelope: our ApiErrors, ajv validation errors,
// Fastify's own body and routing errors, and anything unexpected (logged, answered without internals).
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { API_VERSION_HEADER, apiVersion } from '../headers/api-version.ts'
import { callerGone } from '../../auth/refusals.ts'
import { isDatabaseUnavailable, isUserGone } from '../../db/errors.ts'
import { ApiError, RETRY_AFTER_SECONDS, type ErrorCode, type ErrorDetail } from '../../errors/api-error.ts'
import { failure } from '../envelope.ts'
import { shorten } from './shorten.ts'
import { StorageUnavailableError, storageUnavailable } from '../../storage/driver.ts'
import { TEXT_KEYWORD } from '../body/validation.ts'

interface AjvIssue {
  instancePath: string
  keyword: string
  message?: string
  params: Record<string, unknown>
}

/** What a text field with a control character is told, rather than its pattern in regex. */
const TEXT_MESSAGE = 'must not contain control characters other than tab, line feed and carriage return'

/** Problems listed in one answer; the rest are counted in a last detail. */
export const MAX_LISTED_PROBLEMS = 20

/** A property name the caller made up is quoted with at most this many characters. */
const MAX_NAME_LENGTH = 64
/** ErrorDetail.path's maxLength in the spec. */
const MAX_PATH_LENGTH = 500

/** A property name as a JSON Pointer token: cut short when long, then escaped (`~` → `~0`, `/` → `~1`). */
const token = (name: unknown) => shorten(String(name), MAX_NAME_LENGTH).replaceAll('~', '~0').replaceAll('/', '~1')

/** `/body/email`, `/query/limit`: where each bad value is, as a JSON pointer into the request. */
function validationDetails(error: FastifyError): ErrorDetail[] {
  // Fastify names the query string `querystring`; the spec's paths say `/query/...`.
  const context = error.validationContext ?? 'body'
  const part = context === 'querystring' ? 'query' : context
  // An `if` failure only repeats, at the object, what its `then` branch's own errors say on the field.
  const details = (error.validation as AjvIssue[])
    .filter((issue) => issue.keyword !== 'if')
    .map((issue) => {
      let path = `/${part}${issue.instancePath}`
      if (issue.keyword === 'required') path += `/${token(issue.params.missingProperty)}`
      if (issue.keyword === 'additionalProperties') path += `/${token(issue.params.additionalProperty)}`
      if (issue.keyword === 'dependentRequired') path += `/${token(issue.params.missingProperty)}`
      const message =
        issue.keyword === 'additionalProperties'
          ? 'is not a known property'
          : issue.keyword === TEXT_KEYWORD
            ? TEXT_MESSAGE
            : (issue.message ?? 'is invalid')
      return { path: shorten(path, MAX_PATH_LENGTH), message, code: issue.keyword }
    })
  if (details.length <= MAX_LISTED_PROBLEMS) return details
  const more = details.length - MAX_LISTED_PROBLEMS
  return [
    ...details.slice(0, MAX_LISTED_PROBLEMS),
    { path: `/${part}`, message: `${more} more problem${more === 1 ? ' is' : 's are'} not listed.`, code: 'truncated' },
  ]
}

/** Fastify's own errors, by code: what reached us was malformed before any handler saw it. */
const FASTIFY_ERRORS: Record<string, [number, ErrorCode, string]> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [415, 'UNSUPPORTED_MEDIA_TYPE', 'This content type is not accepted here.'],
  FST_ERR_CTP_INVALID_TYPE: [415, 'UNSUPPORTED_MEDIA_TYPE', 'The Content-Type header is malformed.'],
  FST_ERR_CTP_BODY_TOO_LARGE: [413, 'PAYLOAD_TOO_LARGE', 'The request body is larger than allowed.'],
  FST_ERR_CTP_EMPTY_JSON_BODY: [400, 'MALFORMED_JSON', 'The body is empty but its content type is JSON.'],
  FST_ERR_CTP_INVALID_JSON_BODY: [400, 'MALFORMED_JSON', 'The body is not valid JSON.'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [400, 'MALFORMED_JSON', 'The Content-Length header does not match the body.'],
  FST_ERR_BAD_URL: [400, 'VALIDATION_FAILED', 'The URL is malformed.'],
}

function toApiError(error: FastifyError): ApiError | null {
  if (error instanceof ApiError) return error
  if (error.validation) {
    return new ApiError(
      400,
      'VALIDATION_FAILED',
      'The request does not match the API contract.',
      validationDetails(error),
    )
  }
  const known = error.code === undefined ? undefined : FASTIFY_ERRORS[error.code]
  if (known) return new ApiError(known[0], known[1], known[2])
  // JSON.parse failures surface as SyntaxError with a 400 status.
  if (error instanceof SyntaxError && error.statusCode === 400)
    return new ApiError(400, 'MALFORMED_JSON', 'The body is not valid JSON.')
  return null
}

export const databaseUnavailable = () =>
  new ApiError(
    503,
    'SERVICE_UNAVAILABLE',
    'The service is temporarily unavailable; try again shortly.',
    [{ path: 'database', message: 'The database cannot be reached.' }],
    {
      'retry-after': String(RETRY_AFTER_SECONDS),
    },
  )

/** RFC 9112 §6.3: a request has a body only when it says so, by Transfer-Encoding or a non-zero Content-Length. */
const declaresBody = (headers: FastifyRequest['headers']) =>
  headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0

export function sendError(request: FastifyRequest, reply: FastifyReply, error: ApiError) {
  // Set here too: errors raised before routing never pass the onRequest hook that sets them.
  reply
    .code(error.statusCode)
    .headers({ ...error.headers, 'x-request-id': request.id, [API_VERSION_HEADER]: apiVersion() })
  // Refused before its body was read (401, 403, 404, 415 on an upload): to keep the connection,
  // Node would read and discard the rest of the body, however long. Closing it costs the client a
  // reconnect and spares us the traffic. (Injected test requests have no `complete`: left alone.)
  // A request that declares no body has nothing left to read, though Node has not yet marked it
  // complete when an onRequest hook refuses it (no Host): its connection is kept, as the spec says.
  if (request.raw.complete === false && declaresBody(request.raw.headers)) reply.header('connection', 'close')
  return reply.send(failure(request, { code: error.code, message: error.message, details: error.details }))
}

/** Maps any error to its envelope answer; also used for errors Fastify raises before routing. */
export function handleError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const known = toApiError(error)
  if (known) {
    // A 503 is a refusal the service chose (overload, a full queue, a database away): no bug, no stack.
    if (known.statusCode === 503) request.log.warn({ code: known.code, details: known.details }, known.message)
    else if (known.statusCode >= 500) request.log.error({ err: error }, known.message)
    return sendError(request, reply, known)
  }
  if (error.statusCode !== undefined && error.statusCode < 500) {
    // A 4xx from a plugin we did not map: keep its status, never its internals.
    request.log.warn({ err: error }, 'unmapped client error')
    return sendError(
      request,
      reply,
      new ApiError(error.statusCode, 'VALIDATION_FAILED', 'The request could not be processed.'),
    )
  }
  if (request.principal && isUserGone(error)) {
    // The caller's account was deleted while this write waited on its row.
    return sendError(request, reply, callerGone(request.principal))
  }
  // Before the database's check, which would take a refused connection to the store for its own.
  if (error instanceof StorageUnavailableError) {
    // The object store is down or slow: the write rolled back, so the client may simply retry.
    request.log.warn({ reason: error.message }, 'object storage unavailable')
    return sendError(request, reply, storageUnavailable())
  }
  if (isDatabaseUnavailable(error)) {
    // A passing condition (the database restarts, fails over, is out of connections), not a bug:
    // the client may retry, and the log says what happened without the driver's whole state.
    request.log.warn({ reason: error.message.split('\n').filter(Boolean).at(-1) }, 'database unavailable')
    return sendError(request, reply, databaseUnavailable())
  }
  request.log.error({ err: error }, 'unexpected error')
  return sendError(
    request,
    reply,
    new ApiError(500, 'INTERNAL_ERROR', 'Something went wrong on our side. Quote the request id when reporting it.'),
  )
}

export function installErrorHandler(app: FastifyInstance) {
  app.setErrorHandler(handleError)
}
