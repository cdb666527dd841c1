// The refusals that more than one part of the auth service gives, made in one place so that they
// read alike wherever they come from.
import { ApiError } from '../errors/api-error.ts'
import { INVALID_TOKEN_CHALLENGE } from '../errors/challenges.ts'
import type { Principal } from './principal.ts'

/** The caller's session ended, or their account went with it. */
export const sessionRevoked = () =>
  new ApiError(401, 'SESSION_REVOKED', 'This session has ended; sign in again.', [], INVALID_TOKEN_CHALLENGE)

/** The API token is not one the service honours: its form, unknown, revoked, or its owner gone. */
export const apiTokenInvalid = () =>
  new ApiError(
    401,
    'API_TOKEN_INVALID',
    'The API token is not valid (mistyped, unknown or revoked).',
    [],
    INVALID_TOKEN_CHALLENGE,
  )

/** The caller's account is gone (deleted while the request ran): their session, or their API token, with it. */
export const callerGone = (principal: Principal) =>
  principal.apiToken === undefined ? sessionRevoked() : apiTokenInvalid()

export const currentPasswordIncorrect = () =>
  new ApiError(403, 'CURRENT_PASSWORD_INCORRECT', 'The current password is wrong.', [
    { path: '/body/currentPassword', message: 'does not match the current password' },
  ])

export function passwordTooLongError() {
  return new ApiError(400, 'VALIDATION_FAILED', 'The request does not match the API contract.', [
    { path: '/body/password', message: 'must be at most 72 bytes of UTF-8', code: 'maxBytes' },
  ])
}

export const emailTaken = () => new ApiError(409, 'EMAIL_TAKEN', 'An account with this email already exists.')
