// The data layer for accounts: users, sessions and refresh tokens, one store made of a part per
// subject. Only the stores talk to Prisma; the services above them decide what the rules are.
import type { PrismaClient } from '../generated/prisma/client.ts'
import { makeAdminGrantStore } from './accounts/admin-grant-store.ts'
import { makeUserStore } from './accounts/user-store.ts'
import { makeRefreshTokenStore } from './sessions/refresh-token-store.ts'
import { makeSessionStore } from './sessions/session-store.ts'
import { makeSignInStore } from './sessions/sign-in-store.ts'

export type { EmailChange, Role, UserRecord } from './accounts/user-store.ts'
export type { AdminGrantOutcome } from './accounts/admin-grant-store.ts'
export type { SessionRecord } from './sessions/session-store.ts'

/** What deleting an account did: see deleteUser (accounts/account-deletion-store.ts). */
export type UserDeletion =
  'gone' | 'password-changed' | 'last-admin' | { touchedPostIds: string[]; releasedThumbnails: boolean }

export function makeAccountStore(prisma: PrismaClient) {
  return {
    // Users: looked up, renamed or given a role, their credentials changed, listed.
    ...makeUserStore(prisma),
    // Registration and sign-in, each with the session it starts.
    ...makeSignInStore(prisma),
    // Live sessions: checked, listed, ended.
    ...makeSessionStore(prisma),
    // Refresh tokens: found, rotated, cleaned up.
    ...makeRefreshTokenStore(prisma),
    // Admins made at start-up or by `npm run user:admin`.
    ...makeAdminGrantStore(prisma),
  }
}

export type AccountStore = ReturnType<typeof makeAccountStore>
