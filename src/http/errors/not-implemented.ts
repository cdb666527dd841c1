// Operations whose issue is still open answer 501 NOT_IMPLEMENTED in the envelope, and are
// marked so a test can list them: nothing unfinished passes for done.
import { ApiError } from '../../errors/api-error.ts'
import type { OperationHandler, OperationId } from '../operations.ts'

const NOT_IMPLEMENTED = Symbol('notImplemented')

export function notImplemented<K extends OperationId>(operationId: K): OperationHandler<K> {
  const handler = async () => {
    throw new ApiError(501, 'NOT_IMPLEMENTED', `${operationId} is not implemented yet.`)
  }
  return Object.assign(handler, { [NOT_IMPLEMENTED]: true })
}

export function isNotImplemented(handler: unknown): boolean {
  return typeof handler === 'function' && NOT_IMPLEMENTED in handler
}
