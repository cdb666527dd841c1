// The account mails as a client's user sees them: read off the test's SMTP server, their links'
// tokens taken out of the quoted-printable text nodemailer writes.
import type { FastifyInstance } from 'fastify'
import { ACCOUNT_EMAIL_QUEUE } from '../../src/jobs/account-email.ts'
import { WELCOME_EMAIL_QUEUE } from '../../src/jobs/welcome-email.ts'
import { eventually } from './images.ts'
import type { startSmtpServer } from './smtp.ts'

type Smtp = Awaited<ReturnType<typeof startSmtpServer>>

/** The text of a raw mail with quoted-printable soft breaks and escapes undone. */
export const decoded = (raw: string) =>
  raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))

/** Every token in links of mails to `email` with this subject, oldest first. */
export function tokensTo(smtp: Smtp, email: string, subject: RegExp): string[] {
  return smtp
    .mailsTo(email)
    .map((mail) => decoded(mail.raw))
    .filter((text) => subject.test(text))
    .flatMap((text) => [...text.matchAll(/[?&]token=([A-Za-z0-9_-]{20,})/g)].map((match) => match[1]!))
}

/** Waits for the `count`-th such mail and answers its token (fails the wait after 30 s). */
export async function awaitToken(smtp: Smtp, email: string, subject: RegExp, count = 1): Promise<string> {
  if (!(await eventually(async () => tokensTo(smtp, email, subject).length >= count, 30_000, 100)))
    throw new Error(`no mail ${subject} with a link to ${email} within 30 s`)
  return tokensTo(smtp, email, subject)[count - 1]!
}

export const VERIFY = /^Subject: (Confirm your email address|Welcome to the blog)\r?$/m
export const RESET = /^Subject: Reset your password\r?$/m
export const CHANGED = /^Subject: The email of your account changed\r?$/m

/** Until no mail job is waiting, running or due for a retry: from then on no further mail can come. */
export async function mailJobsSettled(app: FastifyInstance): Promise<void> {
  const pending = async () => {
    const [row] = await app.services.database.prisma.$queryRaw<{ n: number }[]>`
      select count(*)::int as n from pgboss.job
      where name in (${ACCOUNT_EMAIL_QUEUE}, ${WELCOME_EMAIL_QUEUE}) and state in ('created', 'retry', 'active')`
    return row!.n === 0
  }
  if (!(await eventually(pending, 30_000, 100))) throw new Error('mail jobs still pending after 30 s')
}
