// API tokens: the credentials of integrations (a CI job, a static-site build, a newsletter tool).
// Made by a person signed in with a password, for themselves, with scopes; checked on each request
// that carries one by one indexed read of the token's row joined with its owner (as a session is),
// so a revoked token, a demoted owner or a deleted account takes effect at the next request on every
// instance, with no cache to invalidate. What a token may do is its scopes, bounded by what its
// owner may do now: the security hook (src/http/security.ts) judges both.
import type { components } from '../../generated/api.ts'
import type { Config } from '../../config.ts'
import { DEFAULT_PAGE_LIMIT, decodeCursor, pageOf } from '../../cursor.ts'
import { ApiError, invalid, notFound, refuseBlank } from '../../errors/api-error.ts'
import { INVALID_TOKEN_CHALLENGE } from '../../errors/challenges.ts'
import type { Wire } from '../../wire.ts'
import type { ApiTokenPrincipal, ApiTokenScope, SessionPrincipal } from '../principal.ts'
import { apiTokenInvalid, sessionRevoked } from '../refusals.ts'
import { LAST_USED_STEP_SECONDS } from '../sessions/sessions.ts'
import { displayPrefix, isWellFormedApiToken, makeApiTokenHasher, newApiToken } from './api-token-format.ts'
import { makeApiTokenRate } from './api-token-rate.ts'
import type { ApiTokenRecord, ApiTokenStore } from './api-token-store.ts'

export type ApiToken = components['schemas']['ApiToken']
export type CreatedApiToken = components['schemas']['CreatedApiToken']
type CreateApiTokenRequest = components['schemas']['CreateApiTokenRequest']

const DAY_MS = 86_400_000

export interface ApiTokensOptions {
  store: ApiTokenStore
  config: Pick<
    Config,
    | 'jwtSecret'
    | 'apiTokensMaxPerUser'
    | 'apiTokenMaxDays'
    | 'apiTokenRateLimit'
    | 'apiTokenRateWindowSeconds'
    | 'listPageMaxBytes'
  >
}

const apiTokenExpired = () =>
  new ApiError(401, 'API_TOKEN_EXPIRED', 'The API token has expired; make another.', [], INVALID_TOKEN_CHALLENGE)
const apiTokenNotFound = () => notFound('API_TOKEN_NOT_FOUND', 'API token')

export const toApiToken = (token: ApiTokenRecord): Wire<ApiToken> => ({
  id: token.id,
  userId: token.userId,
  name: token.name,
  scopes: token.scopes as ApiTokenScope[],
  prefix: token.prefix,
  createdAt: token.createdAt.toISOString(),
  expiresAt: token.expiresAt?.toISOString() ?? null,
  lastUsedAt: token.lastUsedAt?.toISOString() ?? null,
})

/**
 * When a new token of `principal` expires: as asked, in the future; for a user at most
 * API_TOKEN_MAX_DAYS ahead, and that far when not asked; for an admin, never when not asked.
 */
function expiryOf(principal: SessionPrincipal, asked: string | undefined, maxDays: number): Date | null {
  const latest = Date.now() + maxDays * DAY_MS
  if (asked === undefined) return principal.role === 'admin' ? null : new Date(latest)
  const expiresAt = new Date(asked)
  // The format admits a leap second (23:59:60), which Date cannot hold.
  if (Number.isNaN(expiresAt.getTime())) throw invalid('/body/expiresAt', 'must be a time that exists (no leap second)')
  if (expiresAt.getTime() <= Date.now()) throw invalid('/body/expiresAt', 'must be in the future')
  if (principal.role !== 'admin' && expiresAt.getTime() > latest)
    throw invalid('/body/expiresAt', `must be at most ${maxDays} days from now`)
  return expiresAt
}

/**
 * When the token stops working, by its owner's role now: an admin may hold a token without expiry
 * or past the cap, which once demoted lasts no longer than a user's could (counted from creation).
 */
function expiryNow(token: { createdAt: Date; expiresAt: Date | null; role: string }, maxDays: number): number {
  const asked = token.expiresAt?.getTime() ?? Number.POSITIVE_INFINITY
  return token.role === 'admin' ? asked : Math.min(asked, token.createdAt.getTime() + maxDays * DAY_MS)
}

export function makeApiTokens({ store, config }: ApiTokensOptions) {
  const hashOf = makeApiTokenHasher(config.jwtSecret)
  const rate = makeApiTokenRate(config)
  const pageMaxBytes = config.listPageMaxBytes
  const page = async (query: { limit?: number; cursor?: string }, userId?: string) => {
    const limit = query.limit ?? DEFAULT_PAGE_LIMIT
    const rows = await store.list({ userId, limit, after: decodeCursor(query.cursor) })
    const { items, nextCursor } = pageOf(
      rows,
      limit,
      (token) => ({ at: token.createdAt, id: token.id }),
      toApiToken,
      pageMaxBytes,
    )
    return { tokens: items, page: { limit, nextCursor } }
  }

  return {
    /**
     * The caller an API token stands for, as the database sees it now. A token of the wrong form
     * or checksum is refused before any read; a token past its rate limit too, once it was found.
     */
    async authenticate(token: string): Promise<ApiTokenPrincipal> {
      if (!isWellFormedApiToken(token)) throw apiTokenInvalid()
      const key = hashOf(token)
      rate.before(key)
      const found = await store.findByHash(key)
      if (!found) throw apiTokenInvalid()
      if (expiryNow(found, config.apiTokenMaxDays) <= Date.now()) throw apiTokenExpired()
      rate.spend(key)
      // Judged by this instance's clock; the write is conditional on the database's (see markUsed).
      if (found.lastUsedAt === null || Date.now() - found.lastUsedAt.getTime() >= LAST_USED_STEP_SECONDS * 1000)
        await store.markUsed(found.id, LAST_USED_STEP_SECONDS)
      return {
        userId: found.userId,
        role: found.role,
        emailVerified: found.emailVerified,
        apiToken: { id: found.id, scopes: found.scopes as ApiTokenScope[] },
      }
    },

    /** A new token of the caller's, answered with the token itself this once; only its hash is kept. */
    async create(principal: SessionPrincipal, request: CreateApiTokenRequest): Promise<Wire<CreatedApiToken>> {
      refuseBlank(request.name, '/body/name')
      const adminScope = request.scopes.indexOf('admin')
      if (adminScope >= 0 && principal.role !== 'admin') {
        throw new ApiError(403, 'FORBIDDEN', 'Only admins may give a token the admin scope.', [
          { path: `/body/scopes/${adminScope}`, message: 'only admins may give a token the admin scope' },
        ])
      }
      const expiresAt = expiryOf(principal, request.expiresAt, config.apiTokenMaxDays)
      const token = newApiToken()
      const created = await store.create(
        {
          userId: principal.userId,
          name: request.name.trim(),
          scopes: request.scopes,
          tokenHash: hashOf(token),
          prefix: displayPrefix(token),
          expiresAt,
        },
        config.apiTokensMaxPerUser,
      )
      if (created === 'gone') throw sessionRevoked()
      if (created === 'limit') {
        const max = config.apiTokensMaxPerUser
        throw new ApiError(
          409,
          'API_TOKEN_LIMIT_REACHED',
          `You hold ${max} live API tokens, as many as allowed; revoke one first.`,
        )
      }
      return { ...toApiToken(created), token }
    },

    /** The caller's tokens, newest first. */
    listOwn: (principal: SessionPrincipal, query: { limit?: number; cursor?: string }) => page(query, principal.userId),

    /** Every user's tokens, or one user's, newest first (admins). */
    listAll: (query: { limit?: number; cursor?: string; userId?: string }) => page(query, query.userId),

    /** Revokes one of the caller's tokens; anything else is the same 404, so ids of others' tokens tell nothing. */
    async revokeOwn(principal: SessionPrincipal, id: string) {
      if (!(await store.revoke(id, principal.userId))) throw apiTokenNotFound()
    },

    /** Revokes any token (admins). */
    async revokeAny(id: string) {
      if (!(await store.revoke(id))) throw apiTokenNotFound()
    },
  }
}

export type ApiTokens = ReturnType<typeof makeApiTokens>
