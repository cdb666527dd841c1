// The data layer for accounts: users, sessions and refresh tokens. Only this file (and the other
// stores) talk to Prisma; the service above it decides what the rules are.
import { afterPosition, type Position } from '../cursor.ts'
import { Prisma, type PrismaClient } from '../generated/prisma/client.ts'
import type { Role } from '../generated/prisma/enums.ts'
import { sqlIn, type TransactionSql } from '../db/transaction.ts'
import type { SessionDetails } from './session-details.ts'

export type UserRecord = Prisma.UserGetPayload<object>
export type { Role }
/** What granting admin did: see grantAdmin. */
export type AdminGrantOutcome = 'granted-before' | 'created' | 'admin-already' | 'promoted' | 'taken-over'
/** What deleting an account did: see deleteUser. */
export type UserDeletion =
  'gone' | 'password-changed' | 'last-admin' | { commentedPostIds: string[]; releasedThumbnails: boolean }

/** A live session as listSessions shows it. */
export type SessionRecord = Pick<
  Prisma.SessionGetPayload<object>,
  'id' | 'createdAt' | 'lastUsedAt' | 'userAgent' | 'clientAddress'
>

/** An account's email changed from `oldEmail` to `newEmail`. */
export interface EmailChange {
  userId: string
  oldEmail: string
  newEmail: string
}

export function makeAccountStore(prisma: PrismaClient) {
  return {
    findUserByEmail: (email: string) => prisma.user.findUnique({ where: { email } }),

    findUserById: (id: string) => prisma.user.findUnique({ where: { id } }),

    /**
     * Creates the user and their first session in one transaction; `inTransaction` runs inside it
     * too (the welcome-mail job is enqueued there, so a registration never exists without it).
     */
    createUserWithSession: (
      user: { email: string; name: string; passwordHash: string },
      session: { expiresAt: Date; tokenHash: string; details: SessionDetails },
      inTransaction: (user: UserRecord, sql: TransactionSql) => Promise<void>,
    ) =>
      prisma.$transaction(async (tx) => {
        const created = await tx.user.create({ data: user })
        const { id: sessionId } = await tx.session.create({
          data: {
            userId: created.id,
            expiresAt: session.expiresAt,
            ...session.details,
            refreshTokens: { create: { tokenHash: session.tokenHash } },
          },
        })
        await inTransaction(created, sqlIn(tx))
        return { user: created, sessionId }
      }),

    /**
     * Starts a session only while the user's password hash is still `verifiedHash`, the one a login
     * just checked; null when it changed since (a takeover, a password change), so the login is
     * refused. The user's row is held FOR SHARE until the session is in: a concurrent password
     * write waits for this transaction and then revokes the new session with the others, or this
     * one waits for that write and sees the new hash. Without the lock, a session inserted after
     * the revocation ran would outlive it. Answers the user as they are now (the role too).
     */
    startSessionIfPassword: (
      userId: string,
      verifiedHash: string,
      session: { expiresAt: Date; tokenHash: string; details: SessionDetails },
    ) =>
      prisma.$transaction(async (tx) => {
        await tx.$queryRaw`select 1 from users where id = ${userId}::uuid for share`
        const user = await tx.user.findUnique({ where: { id: userId } })
        if (user?.passwordHash !== verifiedHash) return null
        const { id: sessionId } = await tx.session.create({
          data: {
            userId,
            expiresAt: session.expiresAt,
            ...session.details,
            refreshTokens: { create: { tokenHash: session.tokenHash } },
          },
        })
        return { user, sessionId }
      }),

    /**
     * The token with its session and user, or null. Prisma reads each relation in a query of its
     * own: an account deleted between them leaves a token without its session or user, which is
     * no token any more.
     */
    findRefreshToken: async (tokenHash: string) => {
      const token = await prisma.refreshToken.findUnique({
        where: { tokenHash },
        include: { session: { include: { user: true } } },
      })
      // The generated types call these relations required; a concurrent deletion makes them null.
      const session = token?.session as (typeof token & object)['session'] | null | undefined
      return token && session?.user ? token : null
    },

    /**
     * Exchanges a refresh token for the next one of its session, while the session is live:
     * 'ended' when it was revoked or expired, 'reused' when the token was used already (or by a
     * concurrent request), else 'rotated'. The session's row is held FOR SHARE meanwhile, so a
     * revocation (logout, password change, takeover) either waits and then ends the session this
     * rotated, or is seen here: a refresh never answers with tokens of a session that has ended.
     */
    rotateRefreshToken: (tokenId: string, sessionId: string, nextTokenHash: string) =>
      prisma.$transaction(async (tx): Promise<'ended' | 'reused' | 'rotated'> => {
        const [session] = await tx.$queryRaw<{ live: boolean }[]>`
          select revoked_at is null and expires_at > now() as live from sessions where id = ${sessionId}::uuid for share`
        if (!session?.live) return 'ended'
        const claimed = await tx.refreshToken.updateMany({
          where: { id: tokenId, usedAt: null },
          data: { usedAt: new Date() },
        })
        if (claimed.count === 0) return 'reused'
        await tx.refreshToken.create({ data: { sessionId, tokenHash: nextTokenHash } })
        return 'rotated'
      }),

    revokeSession: (id: string) =>
      prisma.session.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: new Date() } }),

    revokeUserSessions: (userId: string, exceptSessionId?: string) =>
      prisma.session.updateMany({
        where: { userId, revokedAt: null, ...(exceptSessionId ? { id: { not: exceptSessionId } } : {}) },
        data: { revokedAt: new Date() },
      }),

    /**
     * What an access token's session says now: the user's current role, whether their email is
     * verified and when the session was last marked used, or null when it ended.
     */
    liveSession: async (
      sessionId: string,
      userId: string,
    ): Promise<{ role: Role; emailVerified: boolean; lastUsedAt: Date } | null> => {
      // One statement: Prisma reads a relation in a query of its own, and an account deleted
      // between the two would leave a session without its user.
      const [session] = await prisma.$queryRaw<{ role: Role; emailVerified: boolean; lastUsedAt: Date }[]>`
        select u.role, u.email_verified as "emailVerified", s.last_used_at as "lastUsedAt"
        from sessions s join users u on u.id = s.user_id
        where s.id = ${sessionId}::uuid and s.user_id = ${userId}::uuid and s.revoked_at is null and s.expires_at > now()`
      return session ?? null
    },

    /**
     * Marks the session used now, unless it was marked less than `stepSeconds` ago by the
     * database's clock: however many requests and instances ask at once, one write per step.
     */
    markSessionUsed: (sessionId: string, stepSeconds: number) =>
      prisma.$executeRaw`
        update sessions set last_used_at = now()
        where id = ${sessionId}::uuid and last_used_at <= now() - ${stepSeconds} * interval '1 second'`,

    /** The user's live sessions, newest first, keyset-paged on (createdAt, id). */
    listLiveSessions: (userId: string, options: { limit: number; after?: Position }) =>
      prisma.session.findMany({
        where: {
          userId,
          revokedAt: null,
          expiresAt: { gt: new Date() },
          ...afterPosition(options.after, 'lt'),
        },
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        take: options.limit + 1,
        select: { id: true, createdAt: true, lastUsedAt: true, userAgent: true, clientAddress: true },
      }) satisfies Promise<SessionRecord[]>,

    /** Ends one live session of the user; false when it is not one (another user's, unknown, ended). */
    revokeUserSession: async (userId: string, sessionId: string) =>
      (
        await prisma.session.updateMany({
          where: { id: sessionId, userId, revokedAt: null, expiresAt: { gt: new Date() } },
          data: { revokedAt: new Date() },
        })
      ).count === 1,

    updateUser: (id: string, data: { name?: string; role?: Role }) => prisma.user.update({ where: { id }, data }),

    /**
     * Puts a new password, email (and name) in place only while the hash is still `verifiedHash`,
     * the one the current password was checked against, in one transaction; null when the password
     * changed since it was checked (a takeover, another change), so an operator's password is never
     * overwritten by a request that checked the old one. One conditional UPDATE: on PostgreSQL a
     * writer that waited for a concurrent one checks the row's new version, so two of them cannot
     * both pass. A new password ends the user's other sessions; a new email is unverified, and
     * `onEmailChanged` runs inside the transaction (it queues the mails: see services.ts).
     */
    changeCredentials: (
      id: string,
      verifiedHash: string,
      data: { passwordHash?: string; email?: string; name?: string },
      keepSessionId: string,
      onEmailChanged: (change: EmailChange, sql: TransactionSql) => Promise<void>,
    ) =>
      prisma.$transaction(async (tx) => {
        const [before] = await tx.$queryRaw<{ email: string }[]>`
          select email from users where id = ${id}::uuid and password_hash = ${verifiedHash} for update`
        if (!before) return null
        const emailChanges = data.email !== undefined && data.email !== before.email
        const updated = await tx.user.update({
          where: { id },
          data: { ...data, ...(emailChanges ? { emailVerified: false } : {}) },
        })
        // Whoever else held this account's sessions may have known the old password.
        if (data.passwordHash !== undefined) {
          await tx.session.updateMany({
            where: { userId: id, revokedAt: null, id: { not: keepSessionId } },
            data: { revokedAt: new Date() },
          })
        }
        if (emailChanges) await onEmailChanged({ userId: id, oldEmail: before.email, newEmail: data.email! }, sqlIn(tx))
        return updated
      }),

    /**
     * The admin at ADMIN_EMAIL has a verified email: the operator vouches for the address. Run at
     * every start-up, so that an admin made before email verification existed is verified too; an
     * account at that address that is not an admin (someone registered it after the admin moved
     * to another address) is left as it is.
     */
    verifyAdminEmail: (email: string) =>
      prisma.user.updateMany({ where: { email, role: 'admin', emailVerified: false }, data: { emailVerified: true } }),

    hasAdminGrant: async (email: string) => (await prisma.adminGrant.count({ where: { email } })) > 0,

    /**
     * Makes `email` an admin and records the grant, in one transaction. `once` (start-up) does
     * nothing when the address was granted before; the grant's row lock makes instances starting
     * together wait for the first one's commit, then do nothing. An account that is a user is
     * promoted; with a password hash it gets that password and all its sessions end, since
     * whoever registered it may not be the operator. An account that is an admin already is left
     * alone: only an admin, the script or an earlier start-up can have made it one.
     */
    grantAdmin: (email: string, passwordHash: string | null, mode: 'once' | 'always'): Promise<AdminGrantOutcome> =>
      prisma.$transaction(
        async (tx) => {
          const recorded = await tx.$queryRaw<
            unknown[]
          >`insert into admin_grants (email) values (${email}) on conflict do nothing returning email`
          if (recorded.length === 0 && mode === 'once') return 'granted-before'
          const user = await tx.user.findUnique({ where: { email } })
          if (!user) {
            // Thrown, so the grant's row rolls back with it.
            if (passwordHash === null)
              throw new Error(`No account with the email ${email}; register it first, or give a password to create it.`)
            // The operator named this address: it is theirs.
            await tx.user.create({
              data: { email, name: 'Administrator', passwordHash, role: 'admin', emailVerified: true },
            })
            return 'created'
          }
          if (user.role === 'admin') return 'admin-already'
          if (passwordHash === null) {
            await tx.user.update({ where: { id: user.id }, data: { role: 'admin' } })
            return 'promoted'
          }
          await tx.user.update({ where: { id: user.id }, data: { role: 'admin', passwordHash, emailVerified: true } })
          await tx.session.updateMany({ where: { userId: user.id, revokedAt: null }, data: { revokedAt: new Date() } })
          return 'taken-over'
        },
        // Another instance's grant transaction may hold the row for a moment.
        { maxWait: 30_000, timeout: 30_000 },
      ),

    /**
     * Deletes up to `batchSize` refresh tokens of sessions that ended (revoked or expired) more
     * than `graceSeconds` ago; how many.
     */
    deleteTokensOfEndedSessions: (batchSize: number, graceSeconds: number) =>
      prisma.$executeRaw`
        delete from refresh_tokens where id in (
          select t.id from sessions s join refresh_tokens t on t.session_id = s.id
          where s.revoked_at < now() - ${graceSeconds} * interval '1 second' or s.expires_at < now() - ${graceSeconds} * interval '1 second'
          limit ${batchSize})`,

    /** Deletes up to `batchSize` sessions that ended more than `graceSeconds` ago (their tokens with them); how many. */
    deleteEndedSessions: (batchSize: number, graceSeconds: number) =>
      prisma.$executeRaw`
        delete from sessions where id in (
          select id from sessions
          where revoked_at < now() - ${graceSeconds} * interval '1 second' or expires_at < now() - ${graceSeconds} * interval '1 second'
          limit ${batchSize})`,

    /** Newest first, keyset-paged on (createdAt, id). */
    listUsers: (options: { limit: number; role?: Role; after?: Position }) =>
      prisma.user.findMany({
        where: {
          ...(options.role ? { role: options.role } : {}),
          ...afterPosition(options.after, 'lt'),
        },
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        take: options.limit + 1,
      }),
  }
}

export type AccountStore = ReturnType<typeof makeAccountStore>
