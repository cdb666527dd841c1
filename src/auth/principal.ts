// Who is calling: what services receive to decide what a caller may see and change. Defined here,
// not in http/, so that services take it without depending on the web layer; http/security.ts
// reads it from the access token and the live session.

export type Role = 'user' | 'admin'

export interface Principal {
  userId: string
  role: Role
  sessionId: string
  /** Whether the user's email is verified now (REQUIRE_VERIFIED_EMAIL reads it). */
  emailVerified: boolean
}

/** What an access token carries besides the registered claims (iss, aud, iat, exp). */
export interface AccessClaims {
  sub: string
  role: Role
  sid: string
}
