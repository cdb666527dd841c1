// Email verification and password reset: the rules of the four operations, and what the mail
// worker composes for each queued request. Requests only queue a job (in the transaction of the
// change that causes it, where there is one); the worker mints the token and mails the link, so a
// mail server that is down never fails a request, and requestPasswordReset does the same work
// whether or not an account has the address: the lookup happens in the background.
import { randomUUID } from 'node:crypto'
import type { Config } from '../../config.ts'
import { ApiError } from '../../errors/api-error.ts'
import type { TransactionSql } from '../../db/transaction.ts'
import {
  emailChangedMessage,
  passwordResetMessage,
  verificationMessage,
  welcomeVerificationLines,
} from '../../mail/account-messages.ts'
import type { MailMessage } from '../../mail/mailer.ts'
import type { AccountStore } from '../account-store.ts'
import { normaliseEmail } from '../email.ts'
import type { AccountTokenStore } from './account-token-store.ts'
import { hashAccountToken, linkWith, makeTokenMinter, newNonce } from './account-tokens.ts'
import { passwordTooLong, type PasswordHasher } from '../passwords/passwords.ts'
import type { Principal } from '../principal.ts'

/** A link to mail: the nonce its token is made from (account-tokens.ts), and when it was asked for. */
export interface LinkRequest {
  nonce: string
  requestedAt: string
}

/** What the account-email queue carries: one job per request, one mail per job. */
export type AccountEmailJob =
  | ({ kind: 'email-verification'; userId: string; email: string } & LinkRequest)
  | ({ kind: 'password-reset'; email: string } & LinkRequest)
  | { kind: 'email-changed'; userId: string; oldEmail: string; newEmail: string }

/** Queues a job under a fresh id; with `sql`, inside that transaction. */
export type EnqueueAccountEmail = (id: string, job: AccountEmailJob, sql?: TransactionSql) => Promise<void>

export interface AccountEmailOptions {
  accounts: Pick<AccountStore, 'findUserById'>
  tokens: AccountTokenStore
  passwords: PasswordHasher
  config: Pick<
    Config,
    | 'jwtSecret'
    | 'emailVerificationTtlSeconds'
    | 'passwordResetTtlSeconds'
    | 'emailVerificationUrl'
    | 'passwordResetUrl'
  >
  enqueue: EnqueueAccountEmail
}

export const newLinkRequest = (): LinkRequest => ({ nonce: newNonce(), requestedAt: new Date().toISOString() })

const invalidVerificationToken = () =>
  new ApiError(
    400,
    'VERIFICATION_TOKEN_INVALID',
    'This verification link is not valid (unknown, expired or used); ask for a new one.',
    [{ path: '/body/token', message: 'unknown, expired or already used' }],
  )

const invalidResetToken = () =>
  new ApiError(
    400,
    'PASSWORD_RESET_TOKEN_INVALID',
    'This password reset link is not valid (unknown, expired, used or superseded); ask for a new one.',
    [{ path: '/body/token', message: 'unknown, expired, superseded or already used' }],
  )

export function makeAccountEmail({ accounts, tokens, passwords, config, enqueue }: AccountEmailOptions) {
  const minter = makeTokenMinter(config.jwtSecret)
  const expiry = (seconds: number) => new Date(Date.now() + seconds * 1000)

  /** Mints the verification token of `link` for the user; the link, or null when there is nothing to verify. */
  async function verificationLink(userId: string, email: string, link: LinkRequest) {
    const token = minter.tokenOf(link.nonce)
    const minted = await tokens.mintVerification(userId, email, {
      tokenHash: hashAccountToken(token),
      requestedAt: new Date(link.requestedAt),
      expiresAt: expiry(config.emailVerificationTtlSeconds),
    })
    return minted && { url: linkWith(config.emailVerificationUrl, token), expiresAt: minted.expiresAt }
  }

  return {
    /** The job that mails a verification link to a new (or changed) address. */
    verificationJob: (userId: string, email: string): AccountEmailJob => ({
      kind: 'email-verification',
      userId,
      email,
      ...newLinkRequest(),
    }),

    async requestVerification(principal: Principal): Promise<void> {
      const user = await accounts.findUserById(principal.userId)
      if (!user) return
      if (user.emailVerified)
        throw new ApiError(409, 'EMAIL_ALREADY_VERIFIED', 'Your email address is verified already.')
      await enqueue(randomUUID(), {
        kind: 'email-verification',
        userId: user.id,
        email: user.email,
        ...newLinkRequest(),
      })
    },

    async verifyEmail(token: string): Promise<void> {
      if (!(await tokens.verifyEmail(hashAccountToken(token)))) throw invalidVerificationToken()
    },

    /** The same work whatever the address: one job, looked up by the worker. */
    async requestPasswordReset(email: string): Promise<void> {
      await enqueue(randomUUID(), { kind: 'password-reset', email: normaliseEmail(email), ...newLinkRequest() })
    },

    async resetPassword(token: string, password: string): Promise<void> {
      if (passwordTooLong(password)) {
        throw new ApiError(400, 'VALIDATION_FAILED', 'The request does not match the API contract.', [
          { path: '/body/password', message: 'must be at most 72 bytes of UTF-8', code: 'maxBytes' },
        ])
      }
      const tokenHash = hashAccountToken(token)
      // Checked before hashing, so a made-up token costs no bcrypt work; claimed for good below.
      if (!(await tokens.resetTokenUsable(tokenHash))) throw invalidResetToken()
      const passwordHash = await passwords.hash(password)
      if (!(await tokens.resetPassword(tokenHash, passwordHash))) throw invalidResetToken()
    },

    /** The welcome mail's verification lines, or none when the job carries no link (or nothing is left to verify). */
    async welcomeLines(userId: string, email: string, link: LinkRequest | undefined): Promise<string[]> {
      if (link === undefined) return []
      const minted = await verificationLink(userId, email, link)
      return minted ? welcomeVerificationLines(minted.url, minted.expiresAt) : []
    },

    /** The mail a job sends, or null when there is none to send (no such account, superseded, verified since). */
    async compose(id: string, job: AccountEmailJob): Promise<MailMessage | null> {
      switch (job.kind) {
        case 'email-verification': {
          const minted = await verificationLink(job.userId, job.email, job)
          if (!minted) return null
          return verificationMessage({ id, to: job.email, link: minted.url, expiresAt: minted.expiresAt })
        }
        case 'password-reset': {
          const token = minter.tokenOf(job.nonce)
          const minted = await tokens.mintReset(job.email, {
            tokenHash: hashAccountToken(token),
            requestedAt: new Date(job.requestedAt),
            expiresAt: expiry(config.passwordResetTtlSeconds),
          })
          if (!minted) return null
          return passwordResetMessage({
            id,
            to: minted.email,
            link: linkWith(config.passwordResetUrl, token),
            expiresAt: minted.expiresAt,
          })
        }
        case 'email-changed': {
          const user = await accounts.findUserById(job.userId)
          if (!user) return null
          return emailChangedMessage({ id, to: job.oldEmail, newEmail: job.newEmail })
        }
      }
    },
  }
}

export type AccountEmail = ReturnType<typeof makeAccountEmail>
