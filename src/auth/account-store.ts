// The data layer for accounts: users, sessions and refresh tokens. Only this file (and the other
// stores) talk to Prisma; the service above it decides what the rules are.
import { Prisma, type PrismaClient } from '../generated/prisma/client.ts'
import type { Role } from '../generated/prisma/enums.ts'

export type UserRecord = Prisma.UserGetPayload<object>
/** Runs SQL inside a transaction; pg-boss uses it to enqueue jobs atomically with our writes. */
export type TransactionSql = (text: string, values?: unknown[]) => Promise<{ rows: unknown[] }>

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
          data: { userId: created.id, expiresAt: session.expiresAt, refreshTokens: { create: { tokenHash: session.tokenHash } } },
        })
        await inTransaction(created, async (text, values = []) => ({ rows: await tx.$queryRawUnsafe(text, ...values) }))
        return { user: created, sessionId }
      }),

    createSession: async (userId: string, expiresAt: Date, tokenHash: string) =>
      (await prisma.session.create({ data: { userId, expiresAt, refreshTokens: { create: { tokenHash } } } })).id,

    findRefreshToken: (tokenHash: string) =>
      prisma.refreshToken.findUnique({ where: { tokenHash }, include: { session: { include: { user: true } } } }),

    /** Marks the token used; false when another request got there first. */
    claimRefreshToken: async (id: string) =>
      (await prisma.refreshToken.updateMany({ where: { id, usedAt: null }, data: { usedAt: new Date() } })).count === 1,

    addRefreshToken: (sessionId: string, tokenHash: string) => prisma.refreshToken.create({ data: { sessionId, tokenHash } }),

    revokeSession: (id: string) => prisma.session.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: new Date() } }),

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

    updateUser: (id: string, data: { name?: string; passwordHash?: string; role?: Role }) =>
      prisma.user.update({ where: { id }, data }),

    createAdmin: (email: string, name: string, passwordHash: string) =>
      prisma.user.create({ data: { email, name, passwordHash, role: 'admin' } }),

    /** Newest first, keyset-paged on (createdAt, id). */
    listUsers: (options: { limit: number; role?: Role; after?: { createdAt: Date; id: string } }) =>
      prisma.user.findMany({
        where: {
          ...(options.role ? { role: options.role } : {}),
          ...(options.after
            ? { OR: [{ createdAt: { lt: options.after.createdAt } }, { createdAt: options.after.createdAt, id: { lt: options.after.id } }] }
            : {}),
        },
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        take: options.limit + 1,
      }),
  }
}

export type AccountStore = ReturnType<typeof makeAccountStore>
