// The one response shape: { data, error, meta }, exactly one of data and error null.
import type { FastifyRequest } from 'fastify'
import type { components } from '../generated/api.ts'

type PageMeta = components['schemas']['PageMeta']
type ErrorBody = components['schemas']['Error']

export function success<T>(request: FastifyRequest, data: T) {
  return { data, error: null, meta: { requestId: request.id } }
}

export function page<T>(request: FastifyRequest, data: T[], pageMeta: PageMeta) {
  return { data, error: null, meta: { requestId: request.id, page: pageMeta } }
}

export function failure(request: FastifyRequest, error: ErrorBody) {
  return { data: null, error, meta: { requestId: request.id } }
}
