// Accounts and sessions: the rules of register, login, refresh, logout and roles. A session is a
// family of one-time refresh tokens; its id (`sid`) rides in every access token, and each request
// checks that the session is still live, so logout and role changes take effect at once everywhere.
import { createHash, randomBytes } from 'node:crypto'
import type { Config } from '../config.ts'
import type { components } from '../generated/api.ts'
import { ApiError, refuseBlank } from '../errors/api-error.ts'
import { INVALID_TOKEN_CHALLENGE, LOGIN_CHALLENGE } from '../errors/challenges.ts'
import { DEFAULT_PAGE_LIMIT, decodeCursor, pageOf } from '../cursor.ts'
import type { AccessClaims, Principal } from './principal.ts'
import { isMissingRecord, isUniqueViolation } from '../db/errors.ts'
import type { TransactionSql } from '../db/transaction.ts'
import type { AccountStore, AdminGrantOutcome, EmailChange, Role, SessionRecord, UserRecord } from './account-store.ts'
import type { AccountDeletionStore } from './account-deletion-store.ts'
import { normaliseEmail } from './email.ts'
import { passwordTooLong, type PasswordCheckLimit, type PasswordHasher } from './passwords.ts'
import { sessionDetails, type SignInClient } from './session-details.ts'

type User = components['schemas']['User']
type TokenPair = components['schemas']['TokenPair']
type UserSession = components['schemas']['UserSession']

/** A session's lastUsedAt moves on at most once per this many seconds: not a write per request. */
export const LAST_USED_STEP_SECONDS = 60

/** What deleting an account leaves for others to update: see AuthServiceOptions.onDeleted. */
export interface DeletedAccount {
  userId: string
  /** Other people's posts whose comments (the account's, and replies to them) went. */
  commentedPostIds: string[]
  /** Whether any of the account's posts had a thumbnail, whose images may now be unused. */
  releasedThumbnails: boolean
}

export interface AuthServiceOptions {
  store: AccountStore
  deletions: AccountDeletionStore
  passwords: PasswordHasher
  config: Pick<Config, 'accessTokenTtlSeconds' | 'refreshTokenTtlDays' | 'requireVerifiedEmail' | 'listPageMaxBytes'>
  signAccessToken: (claims: AccessClaims) => string
  /** Enqueues the welcome mail inside the registration's transaction. */
  onRegistered: (user: UserRecord, sql: TransactionSql) => Promise<void>
  /** Queues the mails of an email change (verification to the new address, notice to the old) inside its transaction. */
  onEmailChanged: (change: EmailChange, sql: TransactionSql) => Promise<void>
  /** Called once a new display name committed: posts embed their author's name. */
  onRenamed?: (userId: string) => Promise<void>
  /** Called once an account's deletion committed: caches forget what it wrote. */
  onDeleted?: (deleted: DeletedAccount) => Promise<void>
}

export const toUser = (user: UserRecord): User => ({
  id: user.id,
  email: user.email,
  name: user.name,
  role: user.role,
  emailVerified: user.emailVerified,
  createdAt: user.createdAt.toISOString(),
  updatedAt: user.updatedAt.toISOString(),
})

/** What start-up (and `npm run user:admin`) say about ADMIN_EMAIL, by grantAdmin's outcome. */
export const ADMIN_GRANT_MESSAGES: Record<AdminGrantOutcome, string> = {
  'granted-before':
    'this address was made an admin once before (an admin may have demoted it since): left as it is; npm run user:admin promotes it again',
  created: 'admin account created with ADMIN_PASSWORD',
  'admin-already': 'this address is an admin already: left as it is',
  promoted: 'the registered account was made an admin; it keeps its own password',
  'taken-over':
    'the account registered at this address before is now an admin whose password is ADMIN_PASSWORD; all its sessions were ended',
}

export { normaliseEmail }

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex')

const invalidCredentials = () =>
  new ApiError(401, 'INVALID_CREDENTIALS', 'The email or the password is wrong.', [], LOGIN_CHALLENGE)
const invalidRefreshToken = () =>
  new ApiError(401, 'REFRESH_TOKEN_INVALID', 'The refresh token is not valid; sign in again.', [], LOGIN_CHALLENGE)
const sessionRevoked = () =>
  new ApiError(401, 'SESSION_REVOKED', 'This session has ended; sign in again.', [], INVALID_TOKEN_CHALLENGE)

const sessionNotFound = () => new ApiError(404, 'SESSION_NOT_FOUND', 'Session not found.')
const lastAdmin = () =>
  new ApiError(409, 'LAST_ADMIN', 'The only admin cannot delete their account; make another user an admin first.')

const toUserSession = (session: SessionRecord, currentId: string): UserSession => ({
  id: session.id,
  createdAt: session.createdAt.toISOString(),
  lastUsedAt: session.lastUsedAt.toISOString(),
  userAgent: session.userAgent,
  address: session.clientAddress,
  current: session.id === currentId,
})

const currentPasswordIncorrect = () =>
  new ApiError(403, 'CURRENT_PASSWORD_INCORRECT', 'The current password is wrong.', [
    { path: '/body/currentPassword', message: 'does not match the current password' },
  ])

function passwordTooLongError() {
  return new ApiError(400, 'VALIDATION_FAILED', 'The request does not match the API contract.', [
    { path: '/body/password', message: 'must be at most 72 bytes of UTF-8', code: 'maxBytes' },
  ])
}

export function makeAuthService({
  store,
  deletions,
  passwords,
  config,
  signAccessToken,
  onRegistered,
  onEmailChanged,
  onRenamed,
  onDeleted,
}: AuthServiceOptions) {
  const refreshExpiry = () => new Date(Date.now() + config.refreshTokenTtlDays * 86_400_000)
  const newRefreshToken = () => randomBytes(32).toString('base64url')
  const pageMaxBytes = config.listPageMaxBytes

  const tokenPair = (user: UserRecord, sessionId: string, refreshToken: string): TokenPair => ({
    accessToken: signAccessToken({ sub: user.id, role: user.role, sid: sessionId }),
    refreshToken,
    tokenType: 'Bearer',
    expiresIn: config.accessTokenTtlSeconds,
    user: toUser(user),
  })

  return {
    async register(input: { email: string; password: string; name: string }, client: SignInClient): Promise<TokenPair> {
      refuseBlank(input.name, '/body/name')
      if (passwordTooLong(input.password)) throw passwordTooLongError()
      const email = normaliseEmail(input.email)
      const passwordHash = await passwords.hash(input.password)
      const refreshToken = newRefreshToken()
      try {
        const { user, sessionId } = await store.createUserWithSession(
          { email, name: input.name.trim(), passwordHash },
          { expiresAt: refreshExpiry(), tokenHash: hashToken(refreshToken), details: sessionDetails(client) },
          onRegistered,
        )
        return tokenPair(user, sessionId, refreshToken)
      } catch (error) {
        if (isUniqueViolation(error))
          throw new ApiError(409, 'EMAIL_TAKEN', 'An account with this email already exists.')
        throw error
      }
    },

    /** Null when the credentials are wrong, so the caller can count the failure before refusing. */
    async login(input: { email: string; password: string }, client: SignInClient): Promise<TokenPair | null> {
      const user = await store.findUserByEmail(normaliseEmail(input.email))
      // Unknown email: compare against a decoy so both failures cost the same bcrypt time.
      const matches = await passwords.verify(input.password, user?.passwordHash ?? (await passwords.decoyHash()))
      if (!user || !matches) return null
      // Only while the password checked is still the account's: see startSessionIfPassword.
      const refreshToken = newRefreshToken()
      const started = await store.startSessionIfPassword(user.id, user.passwordHash, {
        expiresAt: refreshExpiry(),
        tokenHash: hashToken(refreshToken),
        details: sessionDetails(client),
      })
      return started && tokenPair(started.user, started.sessionId, refreshToken)
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
      if (token.usedAt !== null) {
        await store.revokeSession(session.id)
        throw invalidRefreshToken()
      }
      const next = newRefreshToken()
      const outcome = await store.rotateRefreshToken(token.id, session.id, hashToken(next))
      if (outcome === 'reused') await store.revokeSession(session.id)
      if (outcome !== 'rotated') throw invalidRefreshToken()
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

    async currentUser(principal: Principal): Promise<User> {
      const user = await store.findUserById(principal.userId)
      if (!user) throw sessionRevoked()
      return toUser(user)
    },

    /**
     * A new password or email needs the current password, checked under the account's login
     * allowance (`limit`): without it, a stolen access token would be an unlimited oracle for the
     * password, or take the account over by moving its email (and so its password resets) away.
     * A new email mails both addresses: `beforeEmailChange` counts those mails against their
     * limits (throwing past one) once the password checked, before anything is written.
     */
    async updateCurrentUser(
      principal: Principal,
      input: { name?: string; email?: string; password?: string; currentPassword?: string },
      limit: PasswordCheckLimit,
      beforeEmailChange: (change: EmailChange) => Promise<void>,
    ): Promise<User> {
      refuseBlank(input.name, '/body/name')
      const user = await store.findUserById(principal.userId)
      if (!user) throw sessionRevoked()
      const name = input.name?.trim()
      let updated: UserRecord
      if (input.password === undefined && input.email === undefined) {
        try {
          updated = await store.updateUser(user.id, { name })
        } catch (error) {
          // The account was deleted since it was read: its sessions went with it.
          if (isMissingRecord(error)) throw sessionRevoked()
          throw error
        }
      } else {
        if (input.password !== undefined && passwordTooLong(input.password)) throw passwordTooLongError()
        await limit.before(user.email)
        if (!(await passwords.verify(input.currentPassword ?? '', user.passwordHash))) throw currentPasswordIncorrect()
        const email = input.email === undefined ? undefined : normaliseEmail(input.email)
        if (email !== undefined && email !== user.email) {
          try {
            await beforeEmailChange({ userId: user.id, oldEmail: user.email, newEmail: email })
          } catch (error) {
            // The password was right: refused for the mails, not counted as a failed check.
            await limit.accepted(user.email)
            throw error
          }
        }
        const passwordHash = input.password === undefined ? undefined : await passwords.hash(input.password)
        // Written only if the password checked is still the account's: a takeover or another
        // change that came in between wins, and this request is refused as a wrong password is
        // (and counted as one).
        let changed: UserRecord | null
        try {
          changed = await store.changeCredentials(
            user.id,
            user.passwordHash,
            { passwordHash, email, name },
            principal.sessionId,
            onEmailChanged,
          )
        } catch (error) {
          if (isUniqueViolation(error))
            throw new ApiError(409, 'EMAIL_TAKEN', 'An account with this email already exists.')
          throw error
        }
        if (changed === null) throw (await store.findUserById(user.id)) ? currentPasswordIncorrect() : sessionRevoked()
        await limit.accepted(user.email)
        updated = changed
      }
      // Whenever a name was given, not only when it differs from the one read above: a concurrent
      // rename may have changed it in between, and cached posts may show either.
      if (input.name !== undefined) await onRenamed?.(user.id)
      return toUser(updated)
    },

    async listSessions(principal: Principal, query: { limit?: number; cursor?: string }) {
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
    async revokeSession(principal: Principal, sessionId: string) {
      if (!(await store.revokeUserSession(principal.userId, sessionId))) throw sessionNotFound()
    },

    /**
     * Deletes the caller's account and everything it wrote, given its current password, checked
     * under the same allowance as updateCurrentUser's (`limit`).
     */
    async deleteCurrentUser(principal: Principal, currentPassword: string, limit: PasswordCheckLimit) {
      const user = await store.findUserById(principal.userId)
      if (!user) throw sessionRevoked()
      await limit.before(user.email)
      if (!(await passwords.verify(currentPassword, user.passwordHash))) throw currentPasswordIncorrect()
      const outcome = await deletions.deleteUser(user.id, user.passwordHash)
      // Deleted meanwhile (by another request of the same user): the session went with it.
      if (outcome === 'gone') throw sessionRevoked()
      // Changed since it was checked: refused (and counted) as a wrong password, as updateCurrentUser does.
      if (outcome === 'password-changed') throw currentPasswordIncorrect()
      await limit.accepted(user.email)
      if (outcome === 'last-admin') throw lastAdmin()
      await onDeleted?.({ userId: user.id, ...outcome })
    },

    async setRole(principal: Principal, userId: string, role: Role): Promise<User> {
      if (userId === principal.userId) throw new ApiError(403, 'FORBIDDEN', 'Admins cannot change their own role.')
      const userNotFound = () => new ApiError(404, 'USER_NOT_FOUND', 'User not found.')
      if (!(await store.findUserById(userId))) throw userNotFound()
      try {
        return toUser(await store.updateUser(userId, { role }))
      } catch (error) {
        // Deleted (deleteCurrentUser) between the read and the write.
        if (isMissingRecord(error)) throw userNotFound()
        throw error
      }
    },

    async listUsers(query: { limit?: number; cursor?: string; role?: Role }) {
      const limit = query.limit ?? DEFAULT_PAGE_LIMIT
      const rows = await store.listUsers({ limit, role: query.role, after: decodeCursor(query.cursor) })
      const { items, nextCursor } = pageOf(
        rows,
        limit,
        (user) => ({ at: user.createdAt, id: user.id }),
        toUser,
        pageMaxBytes,
      )
      return { users: items, page: { limit, nextCursor } }
    },

    /**
     * ADMIN_EMAIL/ADMIN_PASSWORD at start-up: once per address, ever (see grantAdmin). An account
     * registered at that address before is taken over: ADMIN_PASSWORD, its sessions ended.
     */
    async bootstrapAdmin(email: string, password: string): Promise<AdminGrantOutcome> {
      const address = normaliseEmail(email)
      // Checked first only to spare every later start-up the bcrypt work; grantAdmin decides.
      const outcome = (await store.hasAdminGrant(address))
        ? 'granted-before'
        : await store.grantAdmin(address, await passwords.hash(password), 'once')
      await store.verifyAdminEmail(address)
      return outcome
    },

    /**
     * `npm run user:admin`: makes the address an admin whatever was granted before. A registered
     * account keeps its password unless one is given (the script gives ADMIN_PASSWORD when the
     * address is ADMIN_EMAIL); a missing one is created with the password given.
     */
    async ensureAdmin(email: string, password: string | null) {
      const outcome = await store.grantAdmin(
        normaliseEmail(email),
        password === null ? null : await passwords.hash(password),
        'always',
      )
      return { created: outcome === 'created', outcome }
    },
  }
}

export type AuthService = ReturnType<typeof makeAuthService>
