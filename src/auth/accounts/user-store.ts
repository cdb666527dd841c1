// The data layer of user rows: looked up, renamed or given a role, their credentials changed, and
// listed. Registration, which starts a session with the user, is in sessions/sign-in-store.ts.
import { afterPosition, type Position } from '../../cursor.ts'
import type { Prisma, PrismaClient } from '../../generated/prisma/client.ts'
import type { Role } from '../../generated/prisma/enums.ts'
import { sqlIn, type TransactionSql } from '../../db/transaction.ts'

export type UserRecord = Prisma.UserGetPayload<object>
export type { Role }

/** An account's email changed from `oldEmail` to `newEmail`. */
export interface EmailChange {
  userId: string
  oldEmail: string
  newEmail: string
}

export function makeUserStore(prisma: PrismaClient) {
  return {
    findUserByEmail: (email: string) => prisma.user.findUnique({ where: { email } }),

    findUserById: (id: string) => prisma.user.findUnique({ where: { id } }),

    updateUser: (id: string, data: { name?: string; role?: Role }) => prisma.user.update({ where: { id }, data }),

    /**
     * Puts a new password, email (and name) in place only while the hash is still `verifiedHash`,
     * the one the current password was checked against, in one transaction; null when the password
     * changed since it was checked (a takeover, another change), so an operator's password is never
     * overwritten by a request that checked the old one. One conditional UPDATE: on PostgreSQL a
     * writer that waited for a concurrent one checks the row's new version, so two of them cannot
     * both pass. A new password ends the user's other sessions; a new email is unverified, and
     * `onEmailChanged` runs inside the transaction (it queues the mails: see src/services/accounts.ts).
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
