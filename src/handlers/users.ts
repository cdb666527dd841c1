// Tag `users`: the signed-in user's own account, and user administration.
import { sessionOf } from '../auth/principal.ts'
import { page, success } from '../http/envelope.ts'
import type { OperationHandler } from '../http/operations.ts'

export const getCurrentUser: OperationHandler<'getCurrentUser'> = async (request) =>
  success(request, await request.server.services.auth.currentUser(request.principal!))

export const updateCurrentUser: OperationHandler<'updateCurrentUser'> = async (request) => {
  const { auth, loginLimits, accountMailLimits } = request.server.services
  if (request.body.currentPassword !== undefined) await loginLimits.beforeCurrentPasswordCheck(request)
  return success(
    request,
    await auth.updateCurrentUser(
      sessionOf(request.principal!),
      request.body,
      loginLimits.passwordCheck(request),
      (change) => accountMailLimits.beforeEmailChange(request, change.userId, change.oldEmail, change.newEmail),
    ),
  )
}

/** The password check is limited as updateCurrentUser's is: a stolen access token must not be a password oracle. */
export const deleteCurrentUser: OperationHandler<'deleteCurrentUser'> = async (request, reply) => {
  const { auth, loginLimits } = request.server.services
  await loginLimits.beforeCurrentPasswordCheck(request)
  await auth.deleteCurrentUser(
    sessionOf(request.principal!),
    request.body.currentPassword,
    loginLimits.passwordCheck(request),
  )
  reply.code(204)
  return undefined
}

export const listSessions: OperationHandler<'listSessions'> = async (request) => {
  const { auth, loginLimits } = request.server.services
  await loginLimits.beforeSessionRequest(request)
  const { sessions, page: pageMeta } = await auth.listSessions(sessionOf(request.principal!), request.query)
  return page(request, sessions, pageMeta)
}

export const revokeSession: OperationHandler<'revokeSession'> = async (request, reply) => {
  const { auth, loginLimits } = request.server.services
  await loginLimits.beforeSessionRequest(request)
  await auth.revokeSession(sessionOf(request.principal!), request.params.id)
  reply.code(204)
  return undefined
}

export const listUsers: OperationHandler<'listUsers'> = async (request) => {
  const { users, page: pageMeta } = await request.server.services.auth.listUsers(request.query)
  return page(request, users, pageMeta)
}

export const updateUser: OperationHandler<'updateUser'> = async (request) =>
  success(
    request,
    await request.server.services.auth.setRole(sessionOf(request.principal!), request.params.id, request.body.role),
  )
