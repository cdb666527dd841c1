// Tag `auth`: registration, sign-in, token refresh, sign-out, email verification, password reset.
import { sessionOf } from '../auth/principal.ts'
import { success } from '../http/envelope.ts'
import { signInClient } from '../http/sign-in-client.ts'
import type { OperationHandler } from '../http/operations.ts'
import { NO_STORE } from '../http/headers/caching.ts'

export const register: OperationHandler<'register'> = async (request, reply) => {
  const { auth, loginLimits } = request.server.services
  await loginLimits.beforeRegister(request)
  const pair = await auth.register(request.body, signInClient(request))
  reply.code(201).header('cache-control', NO_STORE)
  return success(request, pair)
}

export const login: OperationHandler<'login'> = async (request, reply) => {
  const { auth, loginLimits } = request.server.services
  await loginLimits.beforeLogin(request)
  const pair = await auth.login(request.body, signInClient(request))
  if (pair === null) throw auth.invalidCredentials()
  await loginLimits.loginSucceeded(request)
  reply.header('cache-control', NO_STORE)
  return success(request, pair)
}

export const refreshSession: OperationHandler<'refreshSession'> = async (request, reply) => {
  const pair = await request.server.services.auth.refresh(request.body.refreshToken)
  reply.header('cache-control', NO_STORE)
  return success(request, pair)
}

export const logout: OperationHandler<'logout'> = async (request, reply) => {
  await request.server.services.auth.logout(sessionOf(request.principal!), request.body?.allSessions ?? false)
  reply.code(204)
  return undefined
}

const QUEUED = { status: 'queued' as const }

export const requestEmailVerification: OperationHandler<'requestEmailVerification'> = async (request, reply) => {
  const { accountEmail, accountMailLimits } = request.server.services
  const principal = sessionOf(request.principal!)
  await accountMailLimits.beforeVerificationMail(request, principal.userId)
  await accountEmail.requestVerification(principal)
  reply.code(202)
  return success(request, QUEUED)
}

export const verifyEmail: OperationHandler<'verifyEmail'> = async (request, reply) => {
  const { accountEmail, accountMailLimits } = request.server.services
  await accountMailLimits.beforeTokenUse(request)
  await accountEmail.verifyEmail(request.body.token)
  reply.code(204)
  return undefined
}

/** The same work and answer whether or not an account has the email: see AccountEmail.requestPasswordReset. */
export const requestPasswordReset: OperationHandler<'requestPasswordReset'> = async (request, reply) => {
  const { accountEmail, accountMailLimits } = request.server.services
  // Past the email's cap nothing is queued, and the answer is the same: see account-mail-limits.ts.
  if (await accountMailLimits.beforeResetMail(request, request.body.email))
    await accountEmail.requestPasswordReset(request.body.email)
  reply.code(202)
  return success(request, QUEUED)
}

export const resetPassword: OperationHandler<'resetPassword'> = async (request, reply) => {
  const { accountEmail, accountMailLimits } = request.server.services
  await accountMailLimits.beforeTokenUse(request)
  await accountEmail.resetPassword(request.body.token, request.body.password)
  reply.code(204)
  return undefined
}
