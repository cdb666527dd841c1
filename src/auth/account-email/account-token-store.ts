// The data layer of mailed one-time tokens (account_tokens): minted by the mail worker, claimed
// once by verifyEmail and resetPassword. A token is bound to the address it was mailed to: once
// the account's email changed, it proves nothing and is refused.
import type { PrismaClient } from '../../generated/prisma/client.ts'
import type { TransactionSql, Tx } from '../../db/transaction.ts'

export interface MintedFor {
  userId: string
  name: string
  email: string
  /** The stored token's expiry: a retried job finds the first attempt's, which its mail must state. */
  expiresAt: Date
}

interface Claimed {
  userId: string
  email: string
}

export function makeAccountTokenStore(prisma: PrismaClient) {
  return {
    /**
     * Records a verification token for the user while they still have `email` unverified; null
     * (nothing to mail) otherwise. A retried job finds its token in place already.
     */
    mintVerification: (
      userId: string,
      email: string,
      token: { tokenHash: string; requestedAt: Date; expiresAt: Date },
    ): Promise<MintedFor | null> =>
      prisma.$transaction(async (tx) => {
        const user = await tx.user.findFirst({ where: { id: userId, email, emailVerified: false } })
        if (!user) return null
        const expiresAt = await insertOnce(tx, { userId, email, purpose: 'email_verification', ...token })
        return { userId, name: user.name, email, expiresAt }
      }),

    /**
     * Records a reset token for the account with `email`, if there is one, and deletes its reset
     * tokens of older requests; null when there is no such account, or when a newer request has
     * been minted already (this one is superseded: a retried job that comes late mails nothing).
     * The user's row is locked meanwhile, so two resets of one account take turns.
     */
    mintReset: (
      email: string,
      token: { tokenHash: string; requestedAt: Date; expiresAt: Date },
    ): Promise<MintedFor | null> =>
      prisma.$transaction(async (tx) => {
        const [user] = await tx.$queryRaw<{ id: string; name: string }[]>`
          select id, name from users where email = ${email} for update`
        if (!user) return null
        const newer = await tx.accountToken.count({
          where: { userId: user.id, purpose: 'password_reset', requestedAt: { gt: token.requestedAt } },
        })
        if (newer > 0) return null
        await tx.accountToken.deleteMany({
          where: { userId: user.id, purpose: 'password_reset', requestedAt: { lt: token.requestedAt } },
        })
        const expiresAt = await insertOnce(tx, { userId: user.id, email, purpose: 'password_reset', ...token })
        return { userId: user.id, name: user.name, email, expiresAt }
      }),

    /** Whether a reset token would be accepted now (checked before the new password is hashed). */
    resetTokenUsable: async (tokenHash: string) =>
      (
        await prisma.$queryRaw<unknown[]>`
        select 1 from account_tokens t join users u on u.id = t.user_id and u.email = t.email
        where t.token_hash = ${tokenHash} and t.purpose = 'password_reset' and t.used_at is null and t.expires_at > now()`
      ).length > 0,

    /** Marks the account's email verified with the token, used up at once; false when it is not valid. */
    verifyEmail: (tokenHash: string) =>
      prisma.$transaction(async (tx) => {
        const claimed = await claim(tx, tokenHash, 'email_verification')
        if (!claimed) return false
        const { count } = await tx.user.updateMany({
          where: { id: claimed.userId, email: claimed.email },
          data: { emailVerified: true },
        })
        return count === 1
      }),

    /**
     * Sets the password with the token, used up at once, and ends every session of the account and
     * its other reset tokens, in one transaction; false when the token is not valid. The email is
     * verified too: the token came through it. The user's row is written before the sessions are
     * revoked, so a login that checked the old password (and holds the row FOR SHARE while it
     * starts its session: auth/sessions/sign-in-store.ts) either finishes first and is revoked
     * here, or sees the new hash and starts nothing.
     */
    resetPassword: (tokenHash: string, passwordHash: string) =>
      prisma.$transaction(async (tx) => {
        const claimed = await claim(tx, tokenHash, 'password_reset')
        if (!claimed) return false
        const { count } = await tx.user.updateMany({
          where: { id: claimed.userId, email: claimed.email },
          data: { passwordHash, emailVerified: true },
        })
        if (count === 0) return false
        await tx.session.updateMany({
          where: { userId: claimed.userId, revokedAt: null },
          data: { revokedAt: new Date() },
        })
        await tx.accountToken.deleteMany({ where: { userId: claimed.userId, purpose: 'password_reset', usedAt: null } })
        return true
      }),

    /** Deletes up to `batchSize` tokens that expired more than `graceSeconds` ago; how many. */
    deleteExpired: (batchSize: number, graceSeconds: number) =>
      prisma.$executeRaw`
        delete from account_tokens where id in (
          select id from account_tokens where expires_at < now() - ${graceSeconds} * interval '1 second' limit ${batchSize})`,
  }
}

/**
 * A retried job mints the same token again (account-tokens.ts): the first row stays as it was.
 * Answers the stored row's expiry.
 */
async function insertOnce(
  tx: Tx,
  data: {
    userId: string
    email: string
    purpose: 'email_verification' | 'password_reset'
    tokenHash: string
    requestedAt: Date
    expiresAt: Date
  },
): Promise<Date> {
  await tx.accountToken.createMany({ data: [data], skipDuplicates: true })
  const stored = await tx.accountToken.findUniqueOrThrow({
    where: { tokenHash: data.tokenHash },
    select: { expiresAt: true },
  })
  return stored.expiresAt
}

/** Uses the token up, if it is unused and unexpired: one conditional UPDATE, so two requests cannot both pass. */
async function claim(tx: Tx, tokenHash: string, purpose: 'email_verification' | 'password_reset') {
  const [claimed] = await tx.$queryRaw<Claimed[]>`
    update account_tokens set used_at = now()
    where token_hash = ${tokenHash} and purpose = ${purpose}::"AccountTokenPurpose" and used_at is null and expires_at > now()
    returning user_id as "userId", email`
  return claimed ?? null
}

/**
 * Deletes the account's unused tokens, inside the transaction of an email change: each was mailed
 * to an address the account is leaving, and must not work again if the account comes back to it.
 */
export async function deleteUnusedTokensIn(sql: TransactionSql, userId: string): Promise<void> {
  await sql('delete from account_tokens where user_id = $1::uuid and used_at is null', [userId])
}

export type AccountTokenStore = ReturnType<typeof makeAccountTokenStore>
