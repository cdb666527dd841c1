// The data layer of making admins: ADMIN_EMAIL at start-up and `npm run user:admin` grant an
// address, recorded in admin_grants; the admin at ADMIN_EMAIL has its email verified.
import type { PrismaClient } from '../../generated/prisma/client.ts'

/** What granting admin did: see grantAdmin. */
export type AdminGrantOutcome = 'granted-before' | 'created' | 'admin-already' | 'promoted' | 'taken-over'

export function makeAdminGrantStore(prisma: PrismaClient) {
  return {
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
  }
}
