// Handler types derived from the generated spec types: a handler whose name, parameters or
// payload drift from openapi/openapi.yaml fails the type-check, not a request.
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { operations } from '../generated/api.ts'

export type OperationId = keyof operations

type Parameters<K extends OperationId> = operations[K]['parameters']
type Part<K extends OperationId, P extends string> = P extends keyof Parameters<K>
  ? NonNullable<Parameters<K>[P]> extends never
    ? Record<string, never>
    : NonNullable<Parameters<K>[P]>
  : Record<string, never>

type JsonContent<R> = R extends { content: { 'application/json': infer Body } } ? Body : never

export type RequestBody<K extends OperationId> = operations[K] extends { requestBody?: infer B }
  ? JsonContent<NonNullable<B>>
  : never

type SuccessStatus = 200 | 201 | 202

/** The envelope a handler returns on success; 204, 304 and binary answers return nothing. */
export type SuccessBody<K extends OperationId> = {
  [S in keyof operations[K]['responses']]: S extends SuccessStatus ? JsonContent<operations[K]['responses'][S]> : never
}[keyof operations[K]['responses']]

export type OperationRequest<K extends OperationId> = FastifyRequest<{
  Params: Part<K, 'path'>
  Querystring: Part<K, 'query'>
  Headers: Part<K, 'header'>
  Body: RequestBody<K>
}>

/**
 * A handler answers through its promise, or, when it never waits, with the envelope itself: Fastify
 * sends a value returned at once without the promise and the turn of the microtask queue that an
 * async handler costs. Returning nothing at once is not allowed (Fastify would wait for a send).
 */
export type OperationHandler<K extends OperationId> = (
  request: OperationRequest<K>,
  reply: FastifyReply,
) => Promise<SuccessBody<K> | undefined> | SuccessBody<K>

/** Every operation of the spec, each with its handler: the compiler checks the set. */
export type HandlerMap = { [K in OperationId]: OperationHandler<K> }
