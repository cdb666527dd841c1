// The texts of the account mails: the email verification link, the password reset link, and the
// notice to an old address that the account's email changed. Each is identified by its job's id.
// None carries the account's display name: anyone can type any address and any name, so a name
// at the head of a mail to an address nobody proved would be their text in a stranger's inbox.
// Links state when they stop working as a time, not a duration: a mail retried after a long
// outage of the mail server has less time left than it had when it was asked for.
import type { MailMessage } from './mailer.ts'

/** `2026-11-23 14:05 UTC`: cut to the minute, so never later than the real expiry. */
export const expiryTime = (expiresAt: Date) => `${expiresAt.toISOString().slice(0, 16).replace('T', ' ')} UTC`

export function verificationMessage(input: { id: string; to: string; link: string; expiresAt: Date }) {
  return {
    id: input.id,
    to: input.to,
    subject: 'Confirm your email address',
    text: [
      'Hello,',
      '',
      'please confirm that this address is yours by opening this link:',
      '',
      input.link,
      '',
      `The link works once, until ${expiryTime(input.expiresAt)}. If you did not ask for it, ignore this mail.`,
    ].join('\n'),
  } satisfies MailMessage
}

/** The lines the welcome mail adds when it carries a verification link. */
export const welcomeVerificationLines = (link: string, expiresAt: Date) => [
  '',
  'Please confirm that this address is yours by opening this link:',
  '',
  link,
  '',
  `The link works once, until ${expiryTime(expiresAt)}.`,
]

export function passwordResetMessage(input: { id: string; to: string; link: string; expiresAt: Date }) {
  return {
    id: input.id,
    to: input.to,
    subject: 'Reset your password',
    text: [
      'Hello,',
      '',
      'someone (we hope you) asked to reset the password of the account with this address. To choose a new one, open this link:',
      '',
      input.link,
      '',
      `The link works once, until ${expiryTime(input.expiresAt)}; setting a new password signs you out everywhere.`,
      'If you did not ask for it, ignore this mail: your password stays as it is.',
    ].join('\n'),
  } satisfies MailMessage
}

/**
 * Sent to the old address, which can no longer reset the password: what its owner can do is change
 * the address back while they can still sign in, or turn to the site's administrators.
 */
export function emailChangedMessage(input: { id: string; to: string; newEmail: string }) {
  return {
    id: input.id,
    to: input.to,
    subject: 'The email of your account changed',
    text: [
      'Hello,',
      '',
      `the email address of your account on this site was changed from this address to ${input.newEmail}.`,
      'This address can no longer reset the password.',
      '',
      'If you did not make this change: if you can still sign in, change the email back and the password',
      'at once; otherwise contact the administrators of the site, who can give the account back to you.',
    ].join('\n'),
  } satisfies MailMessage
}
