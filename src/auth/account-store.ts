// The data layer for accounts: users, sessions and refresh tokens. Only this file (and the other
// stores) talk to Prisma; the service above it decides what the rules are.
import { Prisma, type PrismaClient } from '../generated/prisma/client.ts'
import type { Role } from '../generated/prisma/enums.ts'
import { sqlIn, type TransactionSql } from '../db/transaction.ts'

export type UserRecord = Prisma.UserGetPayload<object>
export type { Role }
/** What granting admin did: see grantAdmin. */
export type AdminGrantOutcome = 'granted-before' | 'created' | 'admin-already' | 'promoted' | 'taken-over'

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
      session: { expiresAt: Date; tokenHash: string },
      inTransaction: (user: UserRecord, sql: TransactionSql) => Promise<void>,
    ) =>
      prisma.$transaction(async (tx) => {
        const created = await tx.user.create({ data: user })
        const { id: sessionId } = await tx.session.create({
          data: {
            userId: created.id,
            expiresAt: session.expiresAt,
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
    startSessionIfPassword: (userId: string, verifiedHash: string, expiresAt: Date, tokenHash: string) =>
      prisma.$transaction(async (tx) => {
        await tx.$queryRaw`select 1 from users where id = ${userId}::uuid for share`
        const user = await tx.user.findUnique({ where: { id: userId } })
        if (user?.passwordHash !== verifiedHash) return null
        const { id: sessionId } = await tx.session.create({
          data: { userId, expiresAt, refreshTokens: { create: { tokenHash } } },
        })
        return { user, sessionId }
      }),

    findRefreshToken: (tokenHash: string) =>
      prisma.refreshToken.findUnique({ where: { tokenHash }, include: { session: { include: { user: true } } } }),

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

    /** What an access token's session says now: the user's current role, or null when it ended. */
    liveSession: async (sessionId: string, userId: string): Promise<{ role: Role } | null> => {
      const session = await prisma.session.findFirst({
        where: { id: sessionId, userId, revokedAt: null, expiresAt: { gt: new Date() } },
        select: { user: { select: { role: true } } },
      })
      return session ? { role: session.user.role } : null
    },

    updateUser: (id: string, data: { name?: string; role?: Role }) => prisma.user.update({ where: { id }, data }),

    /**
     * Puts a new password (and name) in place only while the hash is still `verifiedHash`, the one
     * the current password was checked against, and ends the user's other sessions, in one
     * transaction; null when the password changed since it was checked (a takeover, another
     * change), so an operator's password is never overwritten by a request that checked the old
     * one. One conditional UPDATE: on PostgreSQL a writer that waited for a concurrent one checks
     * the row's new version, so two of them cannot both pass.
     */
    changePassword: (
      id: string,
      verifiedHash: string,
      data: { passwordHash: string; name?: string },
      keepSessionId: string,
    ) =>
      prisma.$transaction(async (tx) => {
        const { count } = await tx.user.updateMany({ where: { id, passwordHash: verifiedHash }, data })
        if (count === 0) return null
        // Whoever else held this account's sessions may have known the old password.
        await tx.session.updateMany({
          where: { userId: id, revokedAt: null, id: { not: keepSessionId } },
          data: { revokedAt: new Date() },
        })
        return tx.user.findUniqueOrThrow({ where: { id } })
      }),

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
            await tx.user.create({ data: { email, name: 'Administrator', passwordHash, role: 'admin' } })
            return 'created'
          }
          if (user.role === 'admin') return 'admin-already'
          if (passwordHash === null) {
            await tx.user.update({ where: { id: user.id }, data: { role: 'admin' } })
            return 'promoted'
          }
          await tx.user.update({ where: { id: user.id }, data: { role: 'admin', passwordHash } })
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
    listUsers: (options: { limit: number; role?: Role; after?: { createdAt: Date; id: string } }) =>
      prisma.user.findMany({
        where: {
          ...(options.role ? { role: options.role } : {}),
          ...(options.after
            ? {
                OR: [
                  { createdAt: { lt: options.after.createdAt } },
                  { createdAt: options.after.createdAt, id: { lt: options.after.id } },
                ],
              }
            : {}),
        },
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        take: options.limit + 1,
      }),
  }
}

export type AccountStore = ReturnType<typeof makeAccountStore>
