// Who is calling: what services receive to decide what a caller may see and change. Defined here,
// not in http/, so that services take it without depending on the web layer; http/security.ts
// reads it from the access token and the live session, or from an API token and its row.
import type { components } from '../generated/api.ts'
import { ApiError } from '../errors/api-error.ts'
import { insufficientScopeChallenge } from '../errors/challenges.ts'

export type Role = 'user' | 'admin'
export type ApiTokenScope = components['schemas']['ApiTokenScope']

interface Caller {
  userId: string
  /** The user's role now, read on every request: an API token acts with its owner's current role. */
  role: Role
  /** Whether the user's email is verified now (REQUIRE_VERIFIED_EMAIL reads it). */
  emailVerified: boolean
}

/** A person signed in with a password: an access token of a live session. */
export interface SessionPrincipal extends Caller {
  sessionId: string
  apiToken?: undefined
}

/** An integration, with an API token; what it may do is also bounded by the token's scopes. */
export interface ApiTokenPrincipal extends Caller {
  sessionId?: undefined
  apiToken: { id: string; scopes: readonly ApiTokenScope[] }
}

/**
 * The caller. Code that needs a session (logout, the sessions list, credential changes) narrows
 * it with `sessionOf`: the compiler will not hand an API token's principal a session id.
 */
export type Principal = SessionPrincipal | ApiTokenPrincipal

/** What an access token carries besides the registered claims (iss, aud, iat, exp). */
export interface AccessClaims {
  sub: string
  role: Role
  sid: string
}

/** The refusal of an API token where only a person signed in with a password may act. */
export const apiTokenNotAllowed = () =>
  new ApiError(
    403,
    'API_TOKEN_NOT_ALLOWED',
    'API tokens are not accepted here: sign in with a password.',
    [],
    insufficientScopeChallenge(),
  )

/**
 * The caller as a signed-in person, or 403 API_TOKEN_NOT_ALLOWED. The security hook refuses API
 * tokens before such operations run (their spec lists no `apiToken`); this keeps the services
 * that need a session honest whatever calls them.
 */
export function sessionOf(principal: Principal): SessionPrincipal {
  if (principal.apiToken !== undefined) throw apiTokenNotAllowed()
  return principal
}
