// The account services, as makeServices builds them: sign-in and account changes, with what each
// change sets off (the mails it queues, the events it emits, the caches it touches); the
// verification and reset mails; integrations' API tokens; the cap of mails per address; the
// account tables' clean-up.
import { randomUUID } from 'node:crypto'
import { makeAccountCleanup } from '../auth/account-cleanup.ts'
import type { AccountDeletionStore } from '../auth/accounts/account-deletion-store.ts'
import { makeAccountEmail, newLinkRequest } from '../auth/account-email/account-email.ts'
import type { AccountStore } from '../auth/account-store.ts'
import { deleteUnusedTokensIn, type AccountTokenStore } from '../auth/account-email/account-token-store.ts'
import { makeApiTokens } from '../auth/api-tokens/api-tokens.ts'
import type { ApiTokenStore } from '../auth/api-tokens/api-token-store.ts'
import { makeAuthService, toUser } from '../auth/auth-service.ts'
import { makePasswordHasher, type PasswordHasher } from '../auth/passwords/passwords.ts'
import type { AccessClaims } from '../auth/principal.ts'
import type { RateLimitStore } from '../auth/rate-limit-store.ts'
import type { Config } from '../config.ts'
import type { PostChanges } from '../content/posts/post-changes.ts'
import type { RequestImageSweep } from '../content/posts/posts.ts'
import { enqueueAccountEmail } from '../jobs/account-email.ts'
import { enqueueWelcomeEmail } from '../jobs/welcome-email.ts'
import { makeRecipientCap } from '../mail/recipient-cap.ts'
import { addMailMetrics } from '../metrics/mail-metrics.ts'
import type { Metrics } from '../metrics/metrics.ts'
import type { Queue } from '../queue/queue.ts'
import type { WebhookEvents } from '../webhooks/webhook-events.ts'

/** Past this many posts changed by one account deletion, every cache is emptied instead of naming each. */
const DELETED_ACCOUNT_POSTS_NAMED = 50

export interface AccountServicesOptions {
  config: Config
  queue: Queue
  stores: {
    accounts: AccountStore
    deletions: AccountDeletionStore
    accountTokens: AccountTokenStore
    apiTokens: ApiTokenStore
    counters: RateLimitStore
  }
  events: WebhookEvents
  changes: PostChanges
  requestImageSweep: RequestImageSweep
  metrics: Metrics
  signAccessToken: (claims: AccessClaims) => string
  /** Wraps the password hasher; tests use it to pause a request between its password check and its write. */
  passwords?: (hasher: PasswordHasher) => PasswordHasher
}

export function makeAccountServices({
  config,
  queue,
  stores,
  events,
  changes,
  requestImageSweep,
  metrics,
  signAccessToken,
  passwords,
}: AccountServicesOptions) {
  const { boss } = queue
  const hasher = makePasswordHasher(config.bcryptCost)
  const passwordHasher = passwords?.(hasher) ?? hasher
  const accountEmail = makeAccountEmail({
    accounts: stores.accounts,
    tokens: stores.accountTokens,
    passwords: passwordHasher,
    config,
    enqueue: (id, job, sql) => enqueueAccountEmail(boss, id, job, sql && { executeSql: sql }),
  })
  const recipientCap = makeRecipientCap(stores.counters, config)
  addMailMetrics(metrics, recipientCap)
  const auth = makeAuthService({
    store: stores.accounts,
    deletions: stores.deletions,
    passwords: passwordHasher,
    config,
    signAccessToken,
    // The welcome mail carries the new address's verification link.
    async onRegistered(user, sql) {
      await enqueueWelcomeEmail(
        boss,
        { userId: user.id, email: user.email, name: user.name, verification: newLinkRequest() },
        { executeSql: sql },
      )
      await events.emit(sql, 'user.registered', toUser(user))
    },
    // Links mailed to the old address stop working; the new address gets its own.
    onEmailChanged: async (change, sql) => {
      await deleteUnusedTokensIn(sql, change.userId)
      await enqueueAccountEmail(boss, randomUUID(), accountEmail.verificationJob(change.userId, change.newEmail), {
        executeSql: sql,
      })
      await enqueueAccountEmail(boss, randomUUID(), { kind: 'email-changed', ...change }, { executeSql: sql })
    },
    onRenamed: (userId) => changes.changed({ authorId: userId }),
    // Their posts leave every page and cache (by author); the posts that showed their rows (comments) show new counts.
    async onDeleted({ userId, touchedPostIds, releasedThumbnails }) {
      await changes.changed({ authorId: userId })
      if (touchedPostIds.length > DELETED_ACCOUNT_POSTS_NAMED) await changes.changedEverything()
      else for (const postId of touchedPostIds) await changes.changed({ postId })
      if (releasedThumbnails) await requestImageSweep()
    },
  })
  return {
    auth,
    accountEmail,
    apiTokens: makeApiTokens({ store: stores.apiTokens, config }),
    recipientCap,
    accountCleanup: makeAccountCleanup(stores),
    /** Stops the password hashing threads. */
    close: () => hasher.close(),
  }
}
