// The mails of an email change, through a real SMTP server: they count against the account-mail
// limits (an account bouncing its email between a stranger's address and its own must not fill
// the stranger's inbox), carry no display name, and leave no old link alive; the notice to the old
// address says what can still be done, and links state their expiry as a time.
import t from 'tap'
import { build, usingPostgres } from '../../helpers/build.ts'
import { registerUser, uniqueEmail, type Account } from '../../helpers/accounts.ts'
import { awaitToken, CHANGED, decoded, mailJobsSettled, RESET, VERIFY } from '../../helpers/account-mail.ts'
import { createScratchDatabase } from '../../helpers/postgres.ts'
import { startSmtpServer } from '../../helpers/smtp.ts'

const smtp = await startSmtpServer()
t.teardown(smtp.close)
const database: Record<string, string> = usingPostgres
  ? { DATABASE_URL: await createScratchDatabase(t, 'email_change_mail') }
  : {}
const jobs = { pollingIntervalSeconds: 0.5, retryDelaySeconds: 1 }

const changeEmail = (app: Awaited<ReturnType<typeof build>>, user: Account, email: string) =>
  app.inject({ method: 'PATCH', url: '/me', headers: user.auth, payload: { email, currentPassword: user.password } })

t.test('email changes count against the recipient and account limits; no display name in the mails', async (t) => {
  const app = await build(t, { ...database, SMTP_URL: smtp.url, ACCOUNT_MAIL_LIMIT_PER_RECIPIENT: '3' }, { jobs })
  const spam = 'Visit https://evil.example now'
  const registered = await app.inject({
    method: 'POST',
    url: '/register',
    payload: { email: uniqueEmail('attacker'), password: 'an attacker password', name: spam },
  })
  const { data } = registered.json()
  const attacker: Account = {
    id: data.user.id,
    email: data.user.email,
    password: 'an attacker password',
    accessToken: data.accessToken,
    refreshToken: data.refreshToken,
    auth: { authorization: `Bearer ${data.accessToken}` },
  }
  const victim = uniqueEmail('victim')
  const statuses: number[] = []
  let refused
  for (let round = 0; round < 4; round++) {
    const response = await changeEmail(app, attacker, round % 2 === 0 ? victim : attacker.email)
    statuses.push(response.statusCode)
    if (response.statusCode === 429) refused = response
    // Each change's mails go out before the next: a verification job that runs after the email
    // moved on sends nothing (its address is no longer the account's), which would make the
    // count depend on the worker's pace.
    await mailJobsSettled(app)
  }
  t.same(statuses, [200, 200, 200, 429], 'the fourth change is refused')
  t.equal(refused?.json().error.code, 'RATE_LIMITED')
  t.ok(Number(refused?.headers['retry-after']) > 0, 'with Retry-After')
  await mailJobsSettled(app)
  const inbox = smtp.mailsTo(victim).map((mail) => decoded(mail.raw))
  t.equal(inbox.length, 3, 'the victim got three mails, the limit, not one per change')
  t.notOk(
    inbox.some((text) => text.includes('evil.example')),
    'none carries the display name the attacker chose',
  )
})

t.test('an email change ends the links mailed before; the notice and links say what holds', async (t) => {
  const app = await build(t, { ...database, SMTP_URL: smtp.url }, { jobs })
  const user = await registerUser(app, 'returning')
  const verification = await awaitToken(smtp, user.email, VERIFY)
  t.equal(
    (await app.inject({ method: 'POST', url: '/password-reset', payload: { email: user.email } })).statusCode,
    202,
  )
  const reset = await awaitToken(smtp, user.email, RESET)
  const [row] = await app.services.database.prisma.$queryRaw<{ expires_at: Date }[]>`
    select expires_at from account_tokens where user_id = ${user.id}::uuid and purpose = 'password_reset'`
  const until = `until ${row!.expires_at.toISOString().slice(0, 16).replace('T', ' ')} UTC`
  const resetMail = smtp
    .mailsTo(user.email)
    .map((mail) => decoded(mail.raw))
    .find((text) => RESET.test(text))
  t.match(resetMail, until, 'the reset mail states when its link stops working')

  t.equal((await changeEmail(app, user, uniqueEmail('away'))).statusCode, 200)
  t.equal((await changeEmail(app, user, user.email)).statusCode, 200, 'and back again')
  const verified = await app.inject({
    method: 'POST',
    url: '/email-verification/confirm',
    payload: { token: verification },
  })
  t.equal(verified.json().error?.code, 'VERIFICATION_TOKEN_INVALID', 'the old verification link stays dead')
  const resetAgain = await app.inject({
    method: 'POST',
    url: '/password-reset/confirm',
    payload: { token: reset, password: 'a password of the returning account' },
  })
  t.equal(resetAgain.json().error?.code, 'PASSWORD_RESET_TOKEN_INVALID', 'the old reset link stays dead')

  await mailJobsSettled(app)
  const notice = smtp
    .mailsTo(user.email)
    .map((mail) => decoded(mail.raw))
    .find((text) => CHANGED.test(text))
  t.notMatch(notice, /reset your password/i, 'the notice does not send the old address to a reset it cannot do')
  t.match(notice, /change the email back/)
})

t.test('email changes toward an address do not use up its password-reset allowance', async (t) => {
  const app = await build(t, { ...database, SMTP_URL: smtp.url, ACCOUNT_MAIL_LIMIT_PER_RECIPIENT: '3' }, { jobs })
  const [victim, attacker] = [await registerUser(app, 'victim'), await registerUser(app, 'attacker')]
  // The victim's address is taken, so each change is refused 409, but only after it was counted.
  const statuses = []
  for (let round = 0; round < 4; round++) statuses.push((await changeEmail(app, attacker, victim.email)).statusCode)
  t.same(statuses, [409, 409, 409, 429], 'the attacker is limited')
  const resetsBefore = smtp.mailsTo(victim.email).filter((mail) => RESET.test(decoded(mail.raw))).length
  t.equal(
    (await app.inject({ method: 'POST', url: '/password-reset', payload: { email: victim.email } })).statusCode,
    202,
  )
  await mailJobsSettled(app)
  const resets = smtp.mailsTo(victim.email).filter((mail) => RESET.test(decoded(mail.raw))).length
  t.equal(resets, resetsBefore + 1, 'the victim’s own reset request is still mailed')
})
