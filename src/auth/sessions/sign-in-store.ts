// The data layer of registration and sign-in: each starts a session, with its first refresh token.
import type { PrismaClient } from '../../generated/prisma/client.ts'
import { sqlIn, type TransactionSql } from '../../db/transaction.ts'
import type { UserRecord } from '../accounts/user-store.ts'
import type { SessionDetails } from './session-details.ts'

/** A session to start: when it expires, the hash of its first refresh token, where it began. */
export interface NewSession {
  expiresAt: Date
  tokenHash: string
  details: SessionDetails
}

/** The session row to create for `userId`, its first refresh token with it. */
const sessionRow = (userId: string, session: NewSession) => ({
  userId,
  expiresAt: session.expiresAt,
  ...session.details,
  refreshTokens: { create: { tokenHash: session.tokenHash } },
})

export function makeSignInStore(prisma: PrismaClient) {
  return {
    /**
     * Creates the user and their first session in one transaction; `inTransaction` runs inside it
     * too (the welcome-mail job is enqueued there, so a registration never exists without it).
     */
    createUserWithSession: (
      user: { email: string; name: string; passwordHash: string },
      session: NewSession,
      inTransaction: (user: UserRecord, sql: TransactionSql) => Promise<void>,
    ) =>
      prisma.$transaction(async (tx) => {
        const created = await tx.user.create({ data: user })
        const { id: sessionId } = await tx.session.create({ data: sessionRow(created.id, session) })
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
    startSessionIfPassword: (userId: string, verifiedHash: string, session: NewSession) =>
      prisma.$transaction(async (tx) => {
        await tx.$queryRaw`select 1 from users where id = ${userId}::uuid for share`
        const user = await tx.user.findUnique({ where: { id: userId } })
        if (user?.passwordHash !== verifiedHash) return null
        const { id: sessionId } = await tx.session.create({ data: sessionRow(userId, session) })
        return { user, sessionId }
      }),
  }
}
