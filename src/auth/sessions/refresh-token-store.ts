// The data layer of refresh tokens: each session is a family of one-time tokens, exchanged one for
// the next (rotateRefreshToken) while the session is live, deleted by the clean-up once it ended.
import type { PrismaClient } from '../../generated/prisma/client.ts'

export function makeRefreshTokenStore(prisma: PrismaClient) {
  return {
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
  }
}
