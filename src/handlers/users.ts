// Tag `users`: the signed-in user's own account, and user administration.
import { page, success } from '../http/envelope.ts'
import type { OperationHandler } from '../http/operations.ts'

export const getCurrentUser: OperationHandler<'getCurrentUser'> = async (request) =>
  success(request, await request.server.services.auth.currentUser(request.principal!))

export const updateCurrentUser: OperationHandler<'updateCurrentUser'> = async (request) => {
  const { auth, loginLimits } = request.server.services
  if (request.body.currentPassword !== undefined) await loginLimits.beforeCurrentPasswordCheck(request)
  return success(
    request,
    await auth.updateCurrentUser(request.principal!, request.body, loginLimits.passwordCheck(request)),
  )
}

export const listUsers: OperationHandler<'listUsers'> = async (request) => {
  const { users, page: pageMeta } = await request.server.services.auth.listUsers(request.query)
  return page(request, users, pageMeta)
}

export const updateUser: OperationHandler<'updateUser'> = async (request) =>
  success(request, await request.server.services.auth.setRole(request.principal!, request.params.id, request.body.role))
