// Sends the service's mail. With SMTP_URL it goes out over SMTP; without it a developer still sees
// every message: written as .eml files under DATA_DIR/mail, or only logged in in-memory mode.
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import nodemailer from 'nodemailer'
import type { Logger } from '../log.ts'
import type { Config } from '../config.ts'

export interface MailMessage {
  to: string
  subject: string
  text: string
  /** A stable id for this message (the welcome mail uses the user's id): names the .eml file and
   * makes the Message-ID, so a message sent twice is recognisably the same one. */
  id?: string
}

export interface Mailer {
  send(message: MailMessage): Promise<void>
  close(): Promise<void>
}

type MailerConfig = Pick<Config, 'smtpUrl' | 'mailFrom' | 'dataDir'>

/** A send that takes longer is cancelled, well before the job's expiry (welcome-email.ts) gives up on it. */
export const SEND_TIMEOUT_MS = 60_000

export function createMailer(config: MailerConfig, log: Logger): Mailer {
  if (config.smtpUrl !== null) return smtpMailer(config.smtpUrl, config.mailFrom)
  if (config.dataDir !== null) return fileMailer(join(config.dataDir, 'mail'), config.mailFrom, log)
  return logMailer(log)
}

function messageId(id: string | undefined, mailFrom: string): string | undefined {
  const domain = /@([^\s>]+)>?$/.exec(mailFrom)?.[1] ?? 'localhost'
  return id === undefined ? undefined : `<${id}@${domain}>`
}

function smtpMailer(url: string, from: string): Mailer {
  // nodemailer's defaults wait up to 2 minutes to connect and 10 minutes on a silent socket; a
  // stuck mail server should fail the attempt quickly so the job is retried later instead.
  const transport = nodemailer.createTransport(
    { url, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 10_000 },
    { from },
  )
  return {
    async send({ id, ...message }) {
      await transport.sendMail({
        ...message,
        messageId: messageId(id, from),
        signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
      })
    },
    async close() {
      transport.close()
    },
  }
}

function fileMailer(directory: string, from: string, log: Logger): Mailer {
  // The stream transport builds the same RFC 822 message SMTP would carry, so a mail client opens it.
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true }, { from })
  return {
    async send({ id, ...message }) {
      const { message: eml } = await transport.sendMail({ ...message, messageId: messageId(id, from) })
      // Colons are not allowed in Windows file names; the timestamp first keeps `ls` in send order.
      const file = join(directory, `${new Date().toISOString().replace(/[:.]/g, '-')}-${id ?? 'message'}.eml`)
      await mkdir(directory, { recursive: true })
      // Mode 600: later mail (a password reset, say) would carry secrets.
      await writeFile(file, eml as Buffer, { mode: 0o600 })
      log.info({ file, subject: message.subject }, 'mail written (no SMTP_URL set)')
    },
    async close() {},
  }
}

function logMailer(log: Logger): Mailer {
  return {
    // In-memory mode keeps no files; the body stays out of the log, where secrets must never land.
    async send({ to, subject }) {
      log.info({ to, subject }, 'mail not sent (no SMTP_URL, in-memory mode)')
    },
    async close() {},
  }
}
