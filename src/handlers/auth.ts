// Tag `auth`: registration, sign-in, token refresh, sign-out.
import { success } from '../http/envelope.ts'
import type { OperationHandler } from '../http/operations.ts'

export const register: OperationHandler<'register'> = async (request, reply) => {
  const { auth, loginLimits } = request.server.services
  await loginLimits.beforeRegister(request)
  const pair = await auth.register(request.body)
  reply.code(201)
  return success(request, pair)
}

export const login: OperationHandler<'login'> = async (request) => {
  const { auth, loginLimits } = request.server.services
  await loginLimits.beforeLogin(request)
  const pair = await auth.login(request.body)
  if (pair === null) throw auth.invalidCredentials()
  await loginLimits.loginSucceeded(request)
  return success(request, pair)
}

export const refreshSession: OperationHandler<'refreshSession'> = async (request) =>
  success(request, await request.server.services.auth.refresh(request.body.refreshToken))

export const logout: OperationHandler<'logout'> = async (request, reply) => {
  await request.server.services.auth.logout(request.principal!, request.body?.allSessions ?? false)
  reply.code(204)
  return undefined
}
