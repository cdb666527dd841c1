// A real SMTP server on loopback that keeps what it receives, and can refuse recipients with a
// temporary failure (451) to make the sender retry.
import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import { SMTPServer } from 'smtp-server'

interface Received {
  to: string[]
  raw: string
}

export async function startSmtpServer() {
  const received: Received[] = []
  /** Recipients whose first RCPT TO is answered 451, and those refused so far (with how often). */
  const refuseFirst = new Set<string>()
  const refused = new Map<string, number>()
  const state = { refuseAll: false }
  const server = new SMTPServer({
    secure: false,
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address, _session, callback) {
      const to = address.address.toLowerCase()
      if (state.refuseAll || (refuseFirst.has(to) && !refused.has(to))) {
        refused.set(to, (refused.get(to) ?? 0) + 1)
        return callback(Object.assign(new Error('Mailbox busy, try again later'), { responseCode: 451 }))
      }
      callback()
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (chunk: Buffer) => chunks.push(chunk))
      stream.on('end', () => {
        received.push({ to: session.envelope.rcptTo.map((a) => a.address.toLowerCase()), raw: Buffer.concat(chunks).toString() })
        callback()
      })
    },
  })
  server.listen(0, '127.0.0.1')
  await once(server.server, 'listening')
  const { port } = server.server.address() as AddressInfo
  return {
    url: `smtp://127.0.0.1:${port}`,
    refuseFirst,
    refused,
    /** While true, every recipient is refused with 451. */
    set refuseAll(value: boolean) {
      state.refuseAll = value
    },
    refusedCount: (email: string) => refused.get(email.toLowerCase()) ?? 0,
    mailsTo: (email: string) => received.filter((mail) => mail.to.includes(email.toLowerCase())),
    close: () => new Promise<void>((resolve) => server.close(resolve)),
  }
}
