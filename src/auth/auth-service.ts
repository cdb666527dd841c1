// Accounts and sessions: the rules of register, login, refresh, logout and roles, as one service
// made of a part per subject, each taking only what it uses of the options below:
// - sessions/sign-in.ts: registration and login, which start a session;
// - sessions/sessions.ts: refresh-token rotation, logout, the live-session check of each request,
//   the caller's list of sessions;
// - accounts/profile.ts: the caller's own account, and changes of its name, email and password;
// - accounts/account-deletion.ts: deleting it;
// - accounts/administration.ts: listing users, setting roles, making admins.
import type { Config } from '../config.ts'
import type { TransactionSql } from '../db/transaction.ts'
import type { AccountStore, EmailChange, UserRecord } from './account-store.ts'
import { makeAccountDeletion, type DeletedAccount } from './accounts/account-deletion.ts'
import type { AccountDeletionStore } from './accounts/account-deletion-store.ts'
import { makeAdministration } from './accounts/administration.ts'
import { makeProfile } from './accounts/profile.ts'
import type { PasswordHasher } from './passwords/passwords.ts'
import type { AccessClaims } from './principal.ts'
import { makeSessions } from './sessions/sessions.ts'
import { makeSessionTokens } from './sessions/session-tokens.ts'
import { makeSignIn } from './sessions/sign-in.ts'

export { ADMIN_GRANT_MESSAGES } from './accounts/administration.ts'
export { toUser } from './accounts/user-view.ts'
export type { DeletedAccount }

export interface AuthServiceOptions {
  store: AccountStore
  deletions: AccountDeletionStore
  passwords: PasswordHasher
  config: Pick<Config, 'accessTokenTtlSeconds' | 'refreshTokenTtlDays' | 'requireVerifiedEmail' | 'listPageMaxBytes'>
  signAccessToken: (claims: AccessClaims) => string
  /** Enqueues the welcome mail inside the registration's transaction. */
  onRegistered: (user: UserRecord, sql: TransactionSql) => Promise<void>
  /** Queues the mails of an email change (verification to the new address, notice to the old) inside its transaction. */
  onEmailChanged: (change: EmailChange, sql: TransactionSql) => Promise<void>
  /** Called once a new display name committed: posts embed their author's name. */
  onRenamed?: (userId: string) => Promise<void>
  /** Called once an account's deletion committed: caches forget what it wrote. */
  onDeleted?: (deleted: DeletedAccount) => Promise<void>
}

export function makeAuthService({
  store,
  deletions,
  passwords,
  config,
  signAccessToken,
  onRegistered,
  onEmailChanged,
  onRenamed,
  onDeleted,
}: AuthServiceOptions) {
  const tokens = makeSessionTokens({ config, signAccessToken })
  return {
    ...makeSignIn({ store, passwords, tokens, onRegistered }),
    ...makeSessions({ store, config, tokens }),
    ...makeProfile({ store, passwords, onEmailChanged, onRenamed }),
    ...makeAccountDeletion({ store, deletions, passwords, onDeleted }),
    ...makeAdministration({ store, passwords, config }),
  }
}

export type AuthService = ReturnType<typeof makeAuthService>
