// The data layer of live sessions: the check every request makes, the owner's list, and ending
// them (one, all of a user's, or those the clean-up deletes once they ended).
import { afterPosition, type Position } from '../../cursor.ts'
import type { Prisma, PrismaClient } from '../../generated/prisma/client.ts'
import type { Role } from '../../generated/prisma/enums.ts'

/** A live session as listSessions shows it. */
export type SessionRecord = Pick<
  Prisma.SessionGetPayload<object>,
  'id' | 'createdAt' | 'lastUsedAt' | 'userAgent' | 'clientAddress'
>

export function makeSessionStore(prisma: PrismaClient) {
  return {
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

    /** Deletes up to `batchSize` sessions that ended more than `graceSeconds` ago (their tokens with them); how many. */
    deleteEndedSessions: (batchSize: number, graceSeconds: number) =>
      prisma.$executeRaw`
        delete from sessions where id in (
          select id from sessions
          where revoked_at < now() - ${graceSeconds} * interval '1 second' or expires_at < now() - ${graceSeconds} * interval '1 second'
          limit ${batchSize})`,
  }
}
