// Without SMTP_URL mail still reaches the developer: as .eml files under DATA_DIR/mail, or, in
// in-memory mode, as a log line that names recipient and subject but never carries the body.
import { randomUUID } from 'node:crypto'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import type { Logger } from '../../src/log.ts'
import { createMailer } from '../../src/mail/mailer.ts'

const mailFrom = 'Blog <no-reply@blog.localhost>'

function recordingLog() {
  const lines: unknown[][] = []
  return { lines, log: { info: (...args: unknown[]) => lines.push(args) } as unknown as Logger }
}

t.test('with a data directory, each message is an .eml file named by time and id', async (t) => {
  const dataDir = t.testdir()
  const { log } = recordingLog()
  const mailer = createMailer({ smtpUrl: null, mailFrom, dataDir }, log)
  const id = randomUUID()
  await mailer.send({ id, to: 'reader@example.com', subject: 'Hello there', text: 'The body text.' })
  await mailer.close()
  const files = await readdir(join(dataDir, 'mail'))
  t.equal(files.length, 1)
  t.match(files[0], new RegExp(`^\\d{4}-\\d\\d-\\d\\dT\\d\\d-\\d\\d-\\d\\d-\\d{3}Z-${id}\\.eml$`))
  const eml = await readFile(join(dataDir, 'mail', files[0]!), 'utf8')
  t.match(eml, /^From: Blog <no-reply@blog\.localhost>\r?$/m)
  t.match(eml, /^To: reader@example\.com\r?$/m)
  t.match(eml, /^Subject: Hello there\r?$/m)
  t.match(eml, 'The body text.')
})

t.test('in memory, a message is only logged, without its body', async (t) => {
  const { lines, log } = recordingLog()
  const mailer = createMailer({ smtpUrl: null, mailFrom, dataDir: null }, log)
  await mailer.send({ to: 'reader@example.com', subject: 'Hello there', text: 'secret body' })
  t.equal(lines.length, 1)
  t.match(lines[0], [{ to: 'reader@example.com', subject: 'Hello there' }, String])
  t.notMatch(JSON.stringify(lines), 'secret body')
})
