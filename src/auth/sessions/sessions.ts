// Sessions after sign-in. A session is a family of one-time refresh tokens; its id (`sid`) rides
// in every access token, and each request checks that the session is still live (authenticate),
// so logout and role changes take effect at once everywhere.
import type { components } from '../../generated/api.ts'
import type { Wire } from '../../wire.ts'
import { ApiError } from '../../errors/api-error.ts'
import { LOGIN_CHALLENGE } from '../../errors/challenges.ts'
import { DEFAULT_PAGE_LIMIT, decodeCursor, pageOf } from '../../cursor.ts'
import type { AccountStore, SessionRecord } from '../account-store.ts'
import type { AuthServiceOptions } from '../auth-service.ts'
import type { AccessClaims, Principal, SessionPrincipal } from '../principal.ts'
import { sessionRevoked } from '../refusals.ts'
import { hashToken, newRefreshToken, type SessionTokens } from './session-tokens.ts'

type TokenPair = components['schemas']['TokenPair']
type UserSession = components['schemas']['UserSession']

/** A session's lastUsedAt moves on at most once per this many seconds: not a write per request. */
export const LAST_USED_STEP_SECONDS = 60

export interface SessionsOptions {
  store: Pick<
    AccountStore,
    | 'findRefreshToken'
    | 'rotateRefreshToken'
    | 'revokeSession'
    | 'revokeUserSessions'
    | 'liveSession'
    | 'markSessionUsed'
    | 'listLiveSessions'
    | 'revokeUserSession'
  >
  config: Pick<AuthServiceOptions['config'], 'requireVerifiedEmail' | 'listPageMaxBytes'>
  tokens: SessionTokens
}

const invalidRefreshToken = () =>
  new ApiError(401, 'REFRESH_TOKEN_INVALID', 'The refresh token is not valid; sign in again.', [], LOGIN_CHALLENGE)

const sessionNotFound = () => new ApiError(404, 'SESSION_NOT_FOUND', 'Session not found.')

const toUserSession = (session: SessionRecord, currentId: string): Wire<UserSession> => ({
  id: session.id,
  createdAt: session.createdAt.toISOString(),
  lastUsedAt: session.lastUsedAt.toISOString(),
  userAgent: session.userAgent,
  address: session.clientAddress,
  current: session.id === currentId,
})

export function makeSessions({ store, config, tokens }: SessionsOptions) {
  const pageMaxBytes = config.listPageMaxBytes

  return {
    async refresh(refreshToken: string): Promise<TokenPair> {
      const token = await store.findRefreshToken(hashToken(refreshToken))
      if (!token) throw invalidRefreshToken()
      const { session } = token
      if (session.revokedAt !== null || session.expiresAt <= new Date()) throw invalidRefreshToken()
      // Presented again after it was exchanged, or racing another request with the same token:
      // someone else may hold a copy, so the whole family ends. The race is treated as reuse too,
      // so that both databases (PGlite runs the two requests one after the other) answer alike.
      if (token.usedAt !== null) {
        await store.revokeSession(session.id)
        throw invalidRefreshToken()
      }
      const next = newRefreshToken()
      const outcome = await store.rotateRefreshToken(token.id, session.id, hashToken(next))
      if (outcome === 'reused') await store.revokeSession(session.id)
      if (outcome !== 'rotated') throw invalidRefreshToken()
      return tokens.pair(session.user, session.id, next)
    },

    async logout(principal: SessionPrincipal, allSessions: boolean) {
      if (allSessions) await store.revokeUserSessions(principal.userId)
      else await store.revokeSession(principal.sessionId)
    },

    /** Turns verified token claims into the caller, as the database sees them now. */
    async authenticate(claims: AccessClaims): Promise<SessionPrincipal> {
      const session = await store.liveSession(claims.sid, claims.sub)
      if (!session) throw sessionRevoked()
      // Judged by this instance's clock; the write itself is conditional on the database's, so a
      // skewed clock costs at most a statement that changes nothing.
      if (Date.now() - session.lastUsedAt.getTime() >= LAST_USED_STEP_SECONDS * 1000)
        await store.markSessionUsed(claims.sid, LAST_USED_STEP_SECONDS)
      return { userId: claims.sub, sessionId: claims.sid, role: session.role, emailVerified: session.emailVerified }
    },

    /** With REQUIRE_VERIFIED_EMAIL, writing posts, comments and thumbnails needs a verified email. */
    requireVerifiedEmail(principal: Principal): void {
      if (config.requireVerifiedEmail && !principal.emailVerified) {
        throw new ApiError(
          403,
          'EMAIL_NOT_VERIFIED',
          'Verify your email address first; ask for a new link with POST /email-verification.',
        )
      }
    },

    async listSessions(principal: SessionPrincipal, query: { limit?: number; cursor?: string }) {
      const limit = query.limit ?? DEFAULT_PAGE_LIMIT
      const rows = await store.listLiveSessions(principal.userId, { limit, after: decodeCursor(query.cursor) })
      const { items, nextCursor } = pageOf(
        rows,
        limit,
        (session) => ({ at: session.createdAt, id: session.id }),
        (session) => toUserSession(session, principal.sessionId),
        pageMaxBytes,
      )
      return { sessions: items, page: { limit, nextCursor } }
    },

    /** Ends one of the caller's live sessions; anything else is the same 404, so ids of others' sessions tell nothing. */
    async revokeSession(principal: SessionPrincipal, sessionId: string) {
      if (!(await store.revokeUserSession(principal.userId, sessionId))) throw sessionNotFound()
    },
  }
}
