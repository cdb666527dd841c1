// The one response shape: { data, error, meta }, exactly one of data and error null.
import type { FastifyRequest } from 'fastify'
import type { components } from '../generated/api.ts'

type PageMeta = components['schemas']['PageMeta']
type ErrorBody = components['schemas']['ErrorInfo']

export function success<T>(request: FastifyRequest, data: T) {
  return { data, error: null, meta: { requestId: request.id } }
}

/**
 * The success envelope around data that is already JSON (a cached post): sent as it is, since
 * Fastify does not serialise a string sent as application/json. The caller vouches that `dataJson`
 * matches the response schema, which the contract tests check.
 */
export const successJson = (request: FastifyRequest, dataJson: string) =>
  `{"data":${dataJson},"error":null,"meta":{"requestId":${JSON.stringify(request.id)}}}`

export function page<T>(request: FastifyRequest, data: T[], pageMeta: PageMeta) {
  return { data, error: null, meta: { requestId: request.id, page: pageMeta } }
}

export function failure(request: FastifyRequest, error: ErrorBody) {
  return { data: null, error, meta: { requestId: request.id } }
}

/** The page envelope around posts that are already JSON (listPosts): sent as it is, as successJson. */
export const pageJson = (request: FastifyRequest, dataJson: string, pageMeta: PageMeta) =>
  `{"data":${dataJson},"error":null,"meta":{"requestId":${JSON.stringify(request.id)},"page":${JSON.stringify(pageMeta)}}}`
