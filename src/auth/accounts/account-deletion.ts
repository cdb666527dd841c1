// Deleting the caller's own account, given its current password; the batches and the locks are
// the store's (account-deletion-store.ts).
import { ApiError } from '../../errors/api-error.ts'
import type { AccountStore } from '../account-store.ts'
import type { AuthServiceOptions } from '../auth-service.ts'
import type { PasswordCheckLimit } from '../passwords/passwords.ts'
import type { SessionPrincipal } from '../principal.ts'
import { currentPasswordIncorrect, sessionRevoked } from '../refusals.ts'

/** What deleting an account leaves for others to update: see AuthServiceOptions.onDeleted. */
export interface DeletedAccount {
  userId: string
  /** Other people's posts that showed a row of the account's (src/content/posts/user-rows-on-posts.ts: its comments, and replies to them). */
  touchedPostIds: string[]
  /** Whether any of the account's posts had a thumbnail, whose images may now be unused. */
  releasedThumbnails: boolean
}

export interface DeleteAccountOptions extends Pick<AuthServiceOptions, 'deletions' | 'passwords' | 'onDeleted'> {
  store: Pick<AccountStore, 'findUserById'>
}

const lastAdmin = () =>
  new ApiError(409, 'LAST_ADMIN', 'The only admin cannot delete their account; make another user an admin first.')

export function makeAccountDeletion({ store, deletions, passwords, onDeleted }: DeleteAccountOptions) {
  return {
    /**
     * Deletes the caller's account and everything it wrote, given its current password, checked
     * under the same allowance as updateCurrentUser's (`limit`).
     */
    async deleteCurrentUser(principal: SessionPrincipal, currentPassword: string, limit: PasswordCheckLimit) {
      const user = await store.findUserById(principal.userId)
      if (!user) throw sessionRevoked()
      await limit.before(user.email)
      if (!(await passwords.verify(currentPassword, user.passwordHash))) throw currentPasswordIncorrect()
      const outcome = await deletions.deleteUser(user.id, user.passwordHash)
      // Deleted meanwhile (by another request of the same user): the session went with it.
      if (outcome === 'gone') throw sessionRevoked()
      // Changed since it was checked: refused (and counted) as a wrong password, as updateCurrentUser does.
      if (outcome === 'password-changed') throw currentPasswordIncorrect()
      await limit.accepted(user.email)
      if (outcome === 'last-admin') throw lastAdmin()
      await onDeleted?.({ userId: user.id, ...outcome })
    },
  }
}
