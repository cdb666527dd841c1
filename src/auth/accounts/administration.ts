// User administration: admins list users and set their roles; start-up (ADMIN_EMAIL) and
// `npm run user:admin` make admins.
import { ApiError } from '../../errors/api-error.ts'
import { isMissingRecord } from '../../db/errors.ts'
import { DEFAULT_PAGE_LIMIT, decodeCursor, pageOf } from '../../cursor.ts'
import type { AccountStore, AdminGrantOutcome, Role } from '../account-store.ts'
import type { AuthServiceOptions } from '../auth-service.ts'
import { normaliseEmail } from '../email.ts'
import type { SessionPrincipal } from '../principal.ts'
import { toUser, type User } from './user-view.ts'

export interface AdministrationOptions extends Pick<AuthServiceOptions, 'passwords'> {
  store: Pick<
    AccountStore,
    'findUserById' | 'updateUser' | 'listUsers' | 'hasAdminGrant' | 'grantAdmin' | 'verifyAdminEmail'
  >
  config: Pick<AuthServiceOptions['config'], 'listPageMaxBytes'>
}

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

export function makeAdministration({ store, passwords, config }: AdministrationOptions) {
  const pageMaxBytes = config.listPageMaxBytes

  return {
    async setRole(principal: SessionPrincipal, userId: string, role: Role): Promise<User> {
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
