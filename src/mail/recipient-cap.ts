// The per-recipient cap of every mail the service sends (ACCOUNT_MAIL_LIMIT_PER_RECIPIENT an
// hour), checked by the mail workers just before they send: welcome mails, verification links,
// resets and notices of a change all count against one counter per address. It is keyed by the
// address, not by an account, so deleting an account and registering again at the same address
// does not start it afresh; and it lives in the database (rate_limit_counters), so it holds across
// instances. The limits the requests check (http/limits/account-mail-limits.ts) answer the asker with
// 429; this one is the recipient's, and nobody who asks is told: past it the mail is skipped,
// logged and counted (blog_mail_skipped_total).
import type { RateLimitStore } from '../auth/rate-limit-store.ts'
import { normaliseEmail } from '../auth/email.ts'
import type { Config } from '../config.ts'

const HOUR_MS = 3_600_000

/** The kinds of mail, as the metric labels them. */
export type MailKind = 'welcome' | 'email-verification' | 'password-reset' | 'email-changed'

export function makeRecipientCap(
  store: Pick<RateLimitStore, 'countOne' | 'releaseOne'>,
  config: Pick<Config, 'accountMailLimitPerRecipient'>,
) {
  const key = (email: string) => `mail:recipient:${normaliseEmail(email)}`
  const skipped = new Map<MailKind, number>()
  return {
    /** Counts one mail to `email`; false when it is past the cap, and the mail must not go (counted as skipped). */
    async take(email: string, kind: MailKind): Promise<boolean> {
      const { current } = await store.countOne(key(email), HOUR_MS)
      if (current <= config.accountMailLimitPerRecipient) return true
      skipped.set(kind, (skipped.get(kind) ?? 0) + 1)
      return false
    },
    /** Gives back a count taken for a mail that did not go after all (nothing to send, or the send failed and will be retried). */
    giveBack: (email: string) => store.releaseOne(key(email)),
    /** Mails skipped by this instance, by kind. */
    skipped: (): ReadonlyMap<MailKind, number> => skipped,
  }
}

export type RecipientCap = ReturnType<typeof makeRecipientCap>
