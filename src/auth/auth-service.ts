// Accounts and sessions: the rules of register, login, refresh, logout and roles. A session is a
// family of one-time refresh tokens; its id (`sid`) rides in every access token, and each request
// checks that the session is still live, so logout and role changes take effect at once everywhere.
import { createHash, randomBytes } from 'node:crypto'
import type { Config } from '../config.ts'
import type { components } from '../generated/api.ts'
import type { Role } from '../generated/prisma/enums.ts'
import { ApiError, refuseBlank } from '../http/api-error.ts'
import { DEFAULT_PAGE_LIMIT, decodeCursor, pageOf } from '../http/cursor.ts'
import type { AccessClaims, Principal } from '../http/security.ts'
import { isUniqueViolation } from '../db/errors.ts'
import type { AccountStore, TransactionSql, UserRecord } from './account-store.ts'
import { passwordTooLong, type PasswordHasher } from './passwords.ts'

type User = components['schemas']['User']
type TokenPair = components['schemas']['TokenPair']

export interface AuthServiceOptions {
  store: AccountStore
  passwords: PasswordHasher
  config: Pick<Config, 'accessTokenTtlSeconds' | 'refreshTokenTtlDays'>
  signAccessToken: (claims: AccessClaims) => string
  /** Enqueues the welcome mail inside the registration's transaction. */
  onRegistered: (user: UserRecord, sql: TransactionSql) => Promise<void>
  /** Called once a new display name committed: posts embed their author's name. */
  onRenamed?: (userId: string) => Promise<void>
}

export const toUser = (user: UserRecord): User => ({
  id: user.id,
  email: user.email,
  name: user.name,
  role: user.role,
  createdAt: user.createdAt.toISOString(),
  updatedAt: user.updatedAt.toISOString(),
})

export const normaliseEmail = (email: string) => email.trim().toLowerCase()

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex')

const invalidCredentials = () => new ApiError(401, 'INVALID_CREDENTIALS', 'The email or the password is wrong.')
const invalidRefreshToken = () => new ApiError(401, 'REFRESH_TOKEN_INVALID', 'The refresh token is not valid; sign in again.')
const sessionRevoked = () =>
  new ApiError(401, 'SESSION_REVOKED', 'This session has ended; sign in again.', [], { 'www-authenticate': 'Bearer error="invalid_token"' })

function passwordTooLongError() {
  return new ApiError(400, 'VALIDATION_FAILED', 'The request does not match the API contract.', [
    { path: '/body/password', message: 'must be at most 72 bytes of UTF-8', code: 'maxBytes' },
  ])
}

export function makeAuthService({ store, passwords, config, signAccessToken, onRegistered, onRenamed }: AuthServiceOptions) {
  const refreshExpiry = () => new Date(Date.now() + config.refreshTokenTtlDays * 86_400_000)
  const newRefreshToken = () => randomBytes(32).toString('base64url')

  const tokenPair = (user: UserRecord, sessionId: string, refreshToken: string): TokenPair => ({
    accessToken: signAccessToken({ sub: user.id, role: user.role, sid: sessionId }),
    refreshToken,
    tokenType: 'Bearer',
    expiresIn: config.accessTokenTtlSeconds,
    user: toUser(user),
  })

  async function startSession(user: UserRecord) {
    const refreshToken = newRefreshToken()
    const sessionId = await store.createSession(user.id, refreshExpiry(), hashToken(refreshToken))
    return tokenPair(user, sessionId, refreshToken)
  }

  return {
    async register(input: { email: string; password: string; name: string }): Promise<TokenPair> {
      refuseBlank(input.name, '/body/name')
      if (passwordTooLong(input.password)) throw passwordTooLongError()
      const email = normaliseEmail(input.email)
      const passwordHash = await passwords.hash(input.password)
      const refreshToken = newRefreshToken()
      try {
        const { user, sessionId } = await store.createUserWithSession(
          { email, name: input.name.trim(), passwordHash },
          { expiresAt: refreshExpiry(), tokenHash: hashToken(refreshToken) },
          onRegistered,
        )
        return tokenPair(user, sessionId, refreshToken)
      } catch (error) {
        if (isUniqueViolation(error)) throw new ApiError(409, 'EMAIL_TAKEN', 'An account with this email already exists.')
        throw error
      }
    },

    /** Null when the credentials are wrong, so the caller can count the failure before refusing. */
    async login(input: { email: string; password: string }): Promise<TokenPair | null> {
      const user = await store.findUserByEmail(normaliseEmail(input.email))
      // Unknown email: compare against a decoy so both failures cost the same bcrypt time.
      const matches = await passwords.verify(input.password, user?.passwordHash ?? (await passwords.decoyHash()))
      if (!user || !matches) return null
      return startSession(user)
    },

    invalidCredentials,

    async refresh(refreshToken: string): Promise<TokenPair> {
      const token = await store.findRefreshToken(hashToken(refreshToken))
      if (!token) throw invalidRefreshToken()
      const { session } = token
      if (session.revokedAt !== null || session.expiresAt <= new Date()) throw invalidRefreshToken()
      // Presented again after it was exchanged, or racing another request with the same token:
      // someone else may hold a copy, so the whole family ends. The race is treated as reuse too,
      // so that both databases (PGlite runs the two requests one after the other) answer alike.
      if (token.usedAt !== null || !(await store.claimRefreshToken(token.id))) {
        await store.revokeSession(session.id)
        throw invalidRefreshToken()
      }
      const next = newRefreshToken()
      await store.addRefreshToken(session.id, hashToken(next))
      return tokenPair(session.user, session.id, next)
    },

    async logout(principal: Principal, allSessions: boolean) {
      if (allSessions) await store.revokeUserSessions(principal.userId)
      else await store.revokeSession(principal.sessionId)
    },

    /** Turns verified token claims into the caller, as the database sees them now. */
    async authenticate(claims: AccessClaims): Promise<Principal> {
      const session = await store.liveSession(claims.sid, claims.sub)
      if (!session) throw sessionRevoked()
      return { userId: claims.sub, sessionId: claims.sid, role: session.role }
    },

    async currentUser(principal: Principal): Promise<User> {
      const user = await store.findUserById(principal.userId)
      if (!user) throw sessionRevoked()
      return toUser(user)
    },

    async updateCurrentUser(principal: Principal, input: { name?: string; password?: string; currentPassword?: string }): Promise<User> {
      refuseBlank(input.name, '/body/name')
      const user = await store.findUserById(principal.userId)
      if (!user) throw sessionRevoked()
      let passwordHash: string | undefined
      if (input.password !== undefined) {
        if (passwordTooLong(input.password)) throw passwordTooLongError()
        if (!(await passwords.verify(input.currentPassword ?? '', user.passwordHash))) {
          throw new ApiError(403, 'CURRENT_PASSWORD_INCORRECT', 'The current password is wrong.', [
            { path: '/body/currentPassword', message: 'does not match the current password' },
          ])
        }
        passwordHash = await passwords.hash(input.password)
      }
      const updated = await store.updateUser(user.id, { name: input.name?.trim(), passwordHash })
      // Whenever a name was given, not only when it differs from the one read above: a concurrent
      // rename may have changed it in between, and cached posts may show either.
      if (input.name !== undefined) await onRenamed?.(user.id)
      // Whoever else held this account's sessions may have known the old password.
      if (passwordHash !== undefined) await store.revokeUserSessions(user.id, principal.sessionId)
      return toUser(updated)
    },

    async setRole(principal: Principal, userId: string, role: Role): Promise<User> {
      if (userId === principal.userId) throw new ApiError(403, 'FORBIDDEN', 'Admins cannot change their own role.')
      const user = await store.findUserById(userId)
      if (!user) throw new ApiError(404, 'USER_NOT_FOUND', 'User not found.')
      return toUser(await store.updateUser(userId, { role }))
    },

    async listUsers(query: { limit?: number; cursor?: string; role?: Role }) {
      const limit = query.limit ?? DEFAULT_PAGE_LIMIT
      const after = decodeCursor(query.cursor)
      const rows = await store.listUsers({ limit, role: query.role, after: after && { createdAt: after.at, id: after.id } })
      const { items, nextCursor } = pageOf(rows, limit, (user) => ({ at: user.createdAt, id: user.id }))
      return { users: items.map(toUser), page: { limit, nextCursor } }
    },

    /**
     * ADMIN_EMAIL/ADMIN_PASSWORD at start-up, and `npm run user:admin`: creates that admin, or
     * promotes the existing account (its password is left as it is). Idempotent.
     */
    async ensureAdmin(email: string, password: string | null) {
      const promoteExisting = async () => {
        const existing = await store.findUserByEmail(normaliseEmail(email))
        if (existing && existing.role !== 'admin') await store.updateUser(existing.id, { role: 'admin' })
        return existing !== null
      }
      if (await promoteExisting()) return { created: false }
      if (password === null) throw new Error(`No account with the email ${email}; register it first, or give a password to create it.`)
      try {
        await store.createAdmin(normaliseEmail(email), 'Administrator', await passwords.hash(password))
      } catch (error) {
        // Another instance starting at the same moment created it first: promote what is there.
        if (isUniqueViolation(error) && (await promoteExisting())) return { created: false }
        throw error
      }
      return { created: true }
    },
  }
}

export type AuthService = ReturnType<typeof makeAuthService>
