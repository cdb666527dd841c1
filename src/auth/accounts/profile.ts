// The caller's own account: reading it, and changing its name, email or password. A new email or
// password needs the current password; see updateCurrentUser.
import { refuseBlank } from '../../errors/api-error.ts'
import { isMissingRecord, isUniqueViolation } from '../../db/errors.ts'
import type { AccountStore, EmailChange, UserRecord } from '../account-store.ts'
import type { AuthServiceOptions } from '../auth-service.ts'
import { normaliseEmail } from '../email.ts'
import { passwordTooLong, type PasswordCheckLimit } from '../passwords/passwords.ts'
import type { Principal, SessionPrincipal } from '../principal.ts'
import { callerGone, currentPasswordIncorrect, emailTaken, passwordTooLongError, sessionRevoked } from '../refusals.ts'
import { toUser, type User } from './user-view.ts'

export interface ProfileOptions extends Pick<AuthServiceOptions, 'passwords' | 'onEmailChanged' | 'onRenamed'> {
  store: Pick<AccountStore, 'findUserById' | 'updateUser' | 'changeCredentials'>
}

/** What updateCurrentUser is asked to change; `currentPassword` when the email or password is among it. */
interface ProfileChange {
  name?: string
  email?: string
  password?: string
  currentPassword?: string
}

export function makeProfile({ store, passwords, onEmailChanged, onRenamed }: ProfileOptions) {
  /** The name alone: no password needed. */
  async function rename(userId: string, name: string | undefined): Promise<UserRecord> {
    try {
      return await store.updateUser(userId, { name })
    } catch (error) {
      // The account was deleted since it was read: its sessions went with it.
      if (isMissingRecord(error)) throw sessionRevoked()
      throw error
    }
  }

  /** A new email or password (and the name with them), given the current password. */
  async function changeCredentials(
    user: UserRecord,
    sessionId: string,
    input: ProfileChange,
    name: string | undefined,
    limit: PasswordCheckLimit,
    beforeEmailChange: (change: EmailChange) => Promise<void>,
  ): Promise<UserRecord> {
    if (input.password !== undefined && passwordTooLong(input.password)) throw passwordTooLongError()
    await limit.before(user.email)
    if (!(await passwords.verify(input.currentPassword ?? '', user.passwordHash))) throw currentPasswordIncorrect()
    const email = input.email === undefined ? undefined : normaliseEmail(input.email)
    if (email !== undefined && email !== user.email) {
      try {
        await beforeEmailChange({ userId: user.id, oldEmail: user.email, newEmail: email })
      } catch (error) {
        // The password was right: refused for the mails, not counted as a failed check.
        await limit.accepted(user.email)
        throw error
      }
    }
    const passwordHash = input.password === undefined ? undefined : await passwords.hash(input.password)
    // Written only if the password checked is still the account's: a takeover or another
    // change that came in between wins, and this request is refused as a wrong password is
    // (and counted as one).
    let changed: UserRecord | null
    try {
      changed = await store.changeCredentials(
        user.id,
        user.passwordHash,
        { passwordHash, email, name },
        sessionId,
        onEmailChanged,
      )
    } catch (error) {
      if (isUniqueViolation(error)) throw emailTaken()
      throw error
    }
    if (changed === null) throw (await store.findUserById(user.id)) ? currentPasswordIncorrect() : sessionRevoked()
    await limit.accepted(user.email)
    return changed
  }

  return {
    async currentUser(principal: Principal): Promise<User> {
      const user = await store.findUserById(principal.userId)
      if (!user) throw callerGone(principal)
      return toUser(user)
    },

    /**
     * A new password or email needs the current password, checked under the account's login
     * allowance (`limit`): without it, a stolen access token would be an unlimited oracle for the
     * password, or take the account over by moving its email (and so its password resets) away.
     * A new email mails both addresses: `beforeEmailChange` counts those mails against their
     * limits (throwing past one) once the password checked, before anything is written.
     */
    async updateCurrentUser(
      principal: SessionPrincipal,
      input: ProfileChange,
      limit: PasswordCheckLimit,
      beforeEmailChange: (change: EmailChange) => Promise<void>,
    ): Promise<User> {
      refuseBlank(input.name, '/body/name')
      const user = await store.findUserById(principal.userId)
      if (!user) throw sessionRevoked()
      const name = input.name?.trim()
      const updated =
        input.password === undefined && input.email === undefined
          ? await rename(user.id, name)
          : await changeCredentials(user, principal.sessionId, input, name, limit, beforeEmailChange)
      // Whenever a name was given, not only when it differs from the one read above: a concurrent
      // rename may have changed it in between, and cached posts may show either.
      if (input.name !== undefined) await onRenamed?.(user.id)
      return toUser(updated)
    },
  }
}
