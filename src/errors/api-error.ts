// The one error type the service throws on purpose; the central error handler turns it into the envelope.
// It lives outside http/ so that services (content/, auth/, images/) throw it without depending on the
// web layer: it carries a status and headers as data, and only http/ sends them.
import type { components } from '../generated/api.ts'
import { isBlank } from './blank.ts'

export type ErrorCode = components['schemas']['ErrorCode']
export type ErrorDetail = components['schemas']['ErrorDetail']

export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: ErrorCode,
    message: string,
    readonly details: ErrorDetail[] = [],
    /** Extra response headers, such as WWW-Authenticate or Allow. */
    readonly headers: Record<string, string> = {},
  ) {
    super(message)
    this.name = 'ApiError'
  }
}

/** Seconds a client should wait before retrying a 503. */
export const RETRY_AFTER_SECONDS = 5

export const notFound = (code: ErrorCode, what: string) => new ApiError(404, code, `${what} not found.`)

/**
 * Text with nothing visible in it (white space, zero-width and other invisible characters: see
 * blank.ts) says nothing: refused where the text is what the resource is (a post's
 * title and body, a comment, a category's or a user's name). Checked here rather than by a schema `pattern`,
 * which would be a breaking change to the released contract; the spec's descriptions say it.
 */
export function refuseBlank(value: string | undefined, path: string): void {
  if (value !== undefined && isBlank(value)) throw invalid(path, 'must not be blank')
}

/** A 400 for a rule the service checks beyond the schema, in the shape ajv's refusals have. */
export const invalid = (path: string, message: string) =>
  new ApiError(400, 'VALIDATION_FAILED', 'The request does not match the API contract.', [{ path, message }])
