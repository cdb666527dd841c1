// Deletes what the account tables keep needlessly, in bounded batches: rate-limit counters whose
// window is over (an expired counter counts as absent anyway), and sessions that ended (revoked
// or expired) more than a day ago, with their refresh tokens. Used refresh tokens of a live
// session stay as long as the session: presenting one again must still end the session (reuse
// detection), however long the legitimate client was away. Once a session has ended, any of its
// tokens is refused whether its rows exist or not. The day of grace keeps a session that a
// request is still rotating (read as live, then a new token added) from vanishing under it. And
// email verification and password reset tokens that expired more than a day ago, and API tokens
// that did (listApiTokens shows an expired token that day, so its owner sees why it stopped).
import { inBatches, type BatchLimits } from '../db/in-batches.ts'
import type { AccountStore } from './account-store.ts'
import type { AccountTokenStore } from './account-email/account-token-store.ts'
import type { ApiTokenStore } from './api-tokens/api-token-store.ts'
import type { RateLimitStore } from './rate-limit-store.ts'

const ENDED_SESSION_GRACE_SECONDS = 86_400

export type CleanupLimits = BatchLimits

export interface CleanupResult {
  counters: number
  refreshTokens: number
  sessions: number
  /** Email verification and password reset tokens. */
  accountTokens: number
  /** API tokens expired more than a day ago. */
  apiTokens: number
  /** A kind of row used up its batches: more may be left for another run. */
  more: boolean
}

export interface AccountCleanupStores {
  accounts: Pick<AccountStore, 'deleteTokensOfEndedSessions' | 'deleteEndedSessions'>
  counters: Pick<RateLimitStore, 'deleteExpired'>
  accountTokens: Pick<AccountTokenStore, 'deleteExpired'>
  apiTokens: Pick<ApiTokenStore, 'deleteExpired'>
}

export function makeAccountCleanup({
  accounts,
  counters: counterStore,
  accountTokens: tokenStore,
  apiTokens: apiTokenStore,
}: AccountCleanupStores) {
  return async function cleanUp(limits: CleanupLimits): Promise<CleanupResult> {
    const { batchSize } = limits
    const grace = ENDED_SESSION_GRACE_SECONDS
    const counters = await inBatches(limits, () => counterStore.deleteExpired(batchSize))
    // Tokens first, in batches: a long session may hold thousands, which one cascading delete of
    // its session would remove in a single unbounded statement.
    const refreshTokens = await inBatches(limits, () => accounts.deleteTokensOfEndedSessions(batchSize, grace))
    // Sessions once their tokens are gone, so the cascade has next to nothing left to do.
    const sessions = refreshTokens.more
      ? { deleted: 0, more: true }
      : await inBatches(limits, () => accounts.deleteEndedSessions(batchSize, grace))
    // An expired link is refused whether its row exists or not; the day of grace only keeps the
    // rows a while for whoever looks into a complaint about a link.
    const accountTokens = await inBatches(limits, () => tokenStore.deleteExpired(batchSize, grace))
    const apiTokens = await inBatches(limits, () => apiTokenStore.deleteExpired(batchSize, grace))
    return {
      counters: counters.deleted,
      refreshTokens: refreshTokens.deleted,
      sessions: sessions.deleted,
      accountTokens: accountTokens.deleted,
      apiTokens: apiTokens.deleted,
      more: counters.more || refreshTokens.more || sessions.more || accountTokens.more || apiTokens.more,
    }
  }
}

export type AccountCleanup = ReturnType<typeof makeAccountCleanup>
