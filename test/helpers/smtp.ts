// A real SMTP server on loopback that keeps what it receives, can refuse recipients with a
// temporary failure (451) to make the sender retry, and can hold its reply to a mail's data so the
// sender stays mid-send until the test releases it.
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
  const state = { refuseAll: false, holdReplies: false }
  /** Replies being held: each delivers its mail (250), or refuses it (451), when called. */
  const held: ((answer: 'deliver' | 'refuse') => void)[] = []
  const heldWaiters: (() => void)[] = []
  /** Sessions whose client hung up: a mail whose reply it never saw was not delivered. */
  const closed = new Set<string>()
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
        const deliver = () => {
          if (closed.has(session.id)) return
          received.push({
            to: session.envelope.rcptTo.map((a) => a.address.toLowerCase()),
            raw: Buffer.concat(chunks).toString(),
          })
          callback()
        }
        if (!state.holdReplies) return deliver()
        held.push((answer) =>
          answer === 'deliver'
            ? deliver()
            : callback(Object.assign(new Error('Mailbox busy, try again later'), { responseCode: 451 })),
        )
        heldWaiters.splice(0).forEach((wake) => wake())
      })
    },
    onClose(session) {
      closed.add(session.id)
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
    /** While true, the reply to each mail's data waits for release(). */
    set holdReplies(value: boolean) {
      state.holdReplies = value
    },
    /** Resolves once a mail is held, waiting for its reply. */
    mailHeld: () => (held.length > 0 ? Promise.resolve() : new Promise<void>((resolve) => heldWaiters.push(resolve))),
    /** Answers every held mail: delivered (unless its sender hung up meanwhile), or refused with 451. */
    release: (answer: 'deliver' | 'refuse' = 'deliver') => held.splice(0).forEach((reply) => reply(answer)),
    refusedCount: (email: string) => refused.get(email.toLowerCase()) ?? 0,
    mailsTo: (email: string) => received.filter((mail) => mail.to.includes(email.toLowerCase())),
    close: () => new Promise<void>((resolve) => server.close(resolve)),
  }
}
