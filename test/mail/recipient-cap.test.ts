// Every mail to an address counts against that address's hourly cap (ACCOUNT_MAIL_LIMIT_PER_RECIPIENT),
// the welcome mail included, whoever asks and whichever account the address belongs to at the
// time: the attack of registering at a stranger's address, deleting the account and registering
// again mails them no more than the cap. Counted as mails a real SMTP server received.
import t, { type Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { build, usingPostgres } from '../helpers/build.ts'
import { registerUser, uniqueEmail } from '../helpers/accounts.ts'
import { mailJobsSettled, RESET, VERIFY, decoded } from '../helpers/account-mail.ts'
import { createScratchDatabase } from '../helpers/postgres.ts'
import { startSmtpServer } from '../helpers/smtp.ts'

const CAP = 3
const ROUNDS = 6
const jobs = { pollingIntervalSeconds: 0.5, retryDelaySeconds: 1 }
const skipNoPostgres = usingPostgres ? false : 'needs PostgreSQL: the embedded database belongs to one process'

const smtp = await startSmtpServer()
t.teardown(smtp.close)

/** A database of its own on PostgreSQL, so no other file's workers take these mail jobs. */
const databaseFor = async (t: Test, name: string): Promise<Record<string, string>> =>
  usingPostgres ? { DATABASE_URL: await createScratchDatabase(t, name) } : {}

/** Registers at `email` and deletes the account again, from an address of its own each round (the registration limit is per address). */
async function registerAndDelete(app: FastifyInstance, email: string, round: number) {
  const remoteAddress = `10.29.3.${round + 1}`
  const password = `pw-round-${round}-long-enough`
  const registered = await app.inject({
    method: 'POST',
    url: '/register',
    remoteAddress,
    payload: { email, password, name: 'Not the owner' },
  })
  const deleted = await app.inject({
    method: 'DELETE',
    url: '/me',
    remoteAddress,
    headers: { authorization: `Bearer ${registered.json().data.accessToken}` },
    payload: { currentPassword: password },
  })
  return [registered.statusCode, deleted.statusCode]
}

const skippedWelcome = async (app: FastifyInstance) => {
  const text = (await app.inject({ method: 'GET', url: '/metrics' })).body
  return Number(/^blog_mail_skipped_total\{kind="welcome"\} (\d+)$/m.exec(text)?.[1] ?? 0)
}

t.test('register, delete, register again at one address: welcome mails stop at the cap', async (t) => {
  const env = {
    ...(await databaseFor(t, 'mail_cap')),
    SMTP_URL: smtp.url,
    ACCOUNT_MAIL_LIMIT_PER_RECIPIENT: String(CAP),
  }
  const app = await build(t, env, { jobs })
  const victim = uniqueEmail('cap-victim')
  const statuses = []
  for (let round = 0; round < ROUNDS; round++) statuses.push(await registerAndDelete(app, victim, round))
  t.same(statuses, Array(ROUNDS).fill([201, 204]), 'every registration succeeds, every deletion too')
  await mailJobsSettled(app)
  t.equal(smtp.mailsTo(victim).length, CAP, `${ROUNDS} registrations, ${CAP} mails`)
  t.equal(await skippedWelcome(app), ROUNDS - CAP, 'the skipped ones are counted')

  // The address holds an account again: its other mails are past the cap as well.
  const owner = await registerUser(app, 'cap-victim', victim)
  t.equal(
    (
      await app.inject({
        method: 'POST',
        url: '/password-reset',
        remoteAddress: '10.29.4.1',
        payload: { email: victim },
      })
    ).statusCode,
    202,
  )
  t.equal(
    (await app.inject({ method: 'POST', url: '/email-verification', headers: owner.auth, remoteAddress: '10.29.4.2' }))
      .statusCode,
    202,
  )
  await mailJobsSettled(app)
  t.equal(smtp.mailsTo(victim).length, CAP, 'no reset, verification or welcome mail past the cap')

  // Another address is not affected.
  const bystander = await registerUser(app, 'cap-bystander')
  await mailJobsSettled(app)
  const mails = smtp.mailsTo(bystander.email).map((mail) => decoded(mail.raw))
  t.equal(mails.length, 1)
  t.match(mails[0], VERIFY, 'the welcome mail with its link')
  t.notOk(mails.some((text) => RESET.test(text)))
})

t.test('two instances on one database share the cap', { skip: skipNoPostgres }, async (t) => {
  const env = {
    ...(await databaseFor(t, 'mail_cap_fleet')),
    SMTP_URL: smtp.url,
    ACCOUNT_MAIL_LIMIT_PER_RECIPIENT: String(CAP),
  }
  const [one, two] = [await build(t, env, { jobs }), await build(t, env, { jobs })]
  const victim = uniqueEmail('cap-fleet-victim')
  for (let round = 0; round < ROUNDS; round++) await registerAndDelete(round % 2 === 0 ? one : two, victim, round)
  await mailJobsSettled(one)
  t.equal(smtp.mailsTo(victim).length, CAP, `${ROUNDS} registrations through two instances, ${CAP} mails`)
  t.equal((await skippedWelcome(one)) + (await skippedWelcome(two)), ROUNDS - CAP)
})
