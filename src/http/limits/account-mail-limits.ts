// Limits of the account mails and their tokens, on the database's counters (auth/rate-limit-store.ts)
// like the login limits, so they hold across instances. Windows of an hour. Past a limit: 429
// RATE_LIMITED with Retry-After, except where said.
// - A mail asked for counts against the client address.
// - requestEmailVerification counts against the account.
// - requestPasswordReset counts against the email from this address (a 429 locks out only the
//   sender who spent it, and is counted whether or not an account has the email, so it tells
//   nothing), and against the email from everyone: past that cap the request is still answered
//   202 but queues nothing. A 429 there would let anyone lock the owner out of resetting, and
//   would tell nothing either, but the owner could not tell it from their own doing.
// - An email change (updateCurrentUser) counts against the account, the new address and the old
//   one (each gets a mail), and the client address: it must not be a way to mail someone freely.
//   The addresses' counters are not the reset cap's, which changes must not use up.
// - A token presented (verifyEmail, resetPassword) counts against the address: a reset costs a
//   bcrypt hash.
import type { FastifyRequest } from 'fastify'
import { addressKey } from '../../auth/client-address.ts'
import { normaliseEmail } from '../../auth/email.ts'
import type { RateLimitStore } from '../../auth/rate-limit-store.ts'
import type { Config } from '../../config.ts'
import { spendOne } from './login-limits.ts'

const HOUR_MS = 3_600_000

type LimitsConfig = Pick<
  Config,
  'accountMailLimitPerAddress' | 'accountMailLimitPerRecipient' | 'accountTokenLimitPerAddress'
>

/**
 * Reset mails to one email from one address: half the email's hourly cap, so that no single
 * address can use the whole cap up and leave the owner's request queueing nothing.
 */
export const perRecipientAddress = (config: LimitsConfig) =>
  Math.max(1, Math.floor(config.accountMailLimitPerRecipient / 2))

export function makeAccountMailLimits(store: RateLimitStore, config: LimitsConfig) {
  const spend = (key: string, max: number, what: string) => spendOne(store, key, max, HOUR_MS, what)

  const mailFrom = (request: FastifyRequest) =>
    spend(
      `account-mail:address:${addressKey(request.ip)}`,
      config.accountMailLimitPerAddress,
      'account mails asked for from this address',
    )

  return {
    async beforeVerificationMail(request: FastifyRequest, userId: string) {
      await mailFrom(request)
      await spend(
        `account-mail:account:${userId}`,
        config.accountMailLimitPerRecipient,
        'account mails for this recipient',
      )
    },
    /**
     * Whether to queue the reset mail: false past the email's cap (answered 202 all the same, so
     * the answer is the same for every email, with an account or without).
     */
    async beforeResetMail(request: FastifyRequest, email: string): Promise<boolean> {
      await mailFrom(request)
      const recipient = normaliseEmail(email)
      await spend(
        `account-mail:email-address:${recipient}:${addressKey(request.ip)}`,
        perRecipientAddress(config),
        'account mails for this recipient from this address',
      )
      const { current } = await store.countOne(`account-mail:email:${recipient}`, HOUR_MS)
      return current <= config.accountMailLimitPerRecipient
    },
    /** An email change mails the new address a link and the old one a notice: both count, as does the account. */
    async beforeEmailChange(request: FastifyRequest, userId: string, oldEmail: string, newEmail: string) {
      await mailFrom(request)
      await spend(
        `account-mail:account:${userId}`,
        config.accountMailLimitPerRecipient,
        'account mails for this account',
      )
      // A key of their own, not the reset cap's: changes toward someone's address (refused 409
      // when it is taken, but counted first) must not silence that person's own reset requests.
      for (const email of [newEmail, oldEmail])
        await spend(
          `account-mail:email-change:${normaliseEmail(email)}`,
          config.accountMailLimitPerRecipient,
          'account mails for this recipient',
        )
    },
    async beforeTokenUse(request: FastifyRequest) {
      await spend(
        `account-token:address:${addressKey(request.ip)}`,
        config.accountTokenLimitPerAddress,
        'account tokens presented from this address',
      )
    },
  }
}

export type AccountMailLimits = ReturnType<typeof makeAccountMailLimits>
