// The one response shape: { data, error, meta }, exactly one of data and error null.
import type { FastifyRequest } from 'fastify'
import type { components } from '../generated/api.ts'

type PageMeta = components['schemas']['PageMeta']
type ErrorBody = components['schemas']['ErrorInfo']

export function success<T>(request: FastifyRequest, data: T) {
  return { data, error: null, meta: { requestId: request.id } }
}

const DATA = Buffer.from('{"data":')
const REQUEST_ID = Buffer.from(',"error":null,"meta":{"requestId":')
const END = Buffer.from('}}')

/**
 * The success envelope around data that is already JSON, as UTF-8 (a cached post or page), and
 * more of `meta` after the request id (`,"page":{…}`) when given: sent as it is, since Fastify
 * sends a Buffer untouched. Bytes, not a string: a string with any non-ASCII character would be
 * measured and encoded again on every answer. The caller vouches that the data matches the
 * response schema, which the contract tests check.
 */
export const successBytes = (request: FastifyRequest, data: Buffer, moreMeta?: Buffer) =>
  Buffer.concat([
    DATA,
    data,
    REQUEST_ID,
    Buffer.from(JSON.stringify(request.id)),
    ...(moreMeta === undefined ? [] : [moreMeta]),
    END,
  ])

export function page<T>(request: FastifyRequest, data: T[], pageMeta: PageMeta) {
  return { data, error: null, meta: { requestId: request.id, page: pageMeta } }
}

export function failure(request: FastifyRequest, error: ErrorBody) {
  return { data: null, error, meta: { requestId: request.id } }
}
