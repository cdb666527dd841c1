// The one error type the service throws on purpose; the central error handler turns it into the envelope.
import type { components } from '../generated/api.ts'

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

export const notFound = (code: ErrorCode, what: string) => new ApiError(404, code, `${what} not found.`)
