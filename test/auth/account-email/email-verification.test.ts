// Email verification end to end through a real SMTP server: the welcome mail's link verifies the
// address, a requested link does too, each works once and not after it expired; an email change
// unverifies the account, mails the new address a link and the old one a notice; with
// REQUIRE_VERIFIED_EMAIL an unverified user may read but not write until verified.
import t from 'tap'
import { build, usingPostgres } from '../../helpers/build.ts'
import { registerAdmin, registerUser, uniqueEmail, type Account } from '../../helpers/accounts.ts'
import { awaitToken, CHANGED, mailJobsSettled, tokensTo, VERIFY } from '../../helpers/account-mail.ts'
import { solidImage, uploadThumbnail } from '../../helpers/images.ts'
import { createScratchDatabase } from '../../helpers/postgres.ts'
import { createPost } from '../../helpers/posts.ts'
import { startSmtpServer } from '../../helpers/smtp.ts'

const smtp = await startSmtpServer()
t.teardown(smtp.close)
// A database of its own on PostgreSQL: another test file's workers must not take these mails.
const database: Record<string, string> = usingPostgres
  ? { DATABASE_URL: await createScratchDatabase(t, 'email_verification') }
  : {}
const jobs = { pollingIntervalSeconds: 0.5, retryDelaySeconds: 1 }
const app = await build(t, { ...database, SMTP_URL: smtp.url }, { jobs })

const me = async (account: Account) =>
  (await app.inject({ method: 'GET', url: '/me', headers: account.auth })).json().data
const verify = (token: string, on = app) =>
  on.inject({ method: 'POST', url: '/email-verification/confirm', payload: { token } })

t.test('registration mails a link that verifies the address, once', async (t) => {
  const user = await registerUser(app, 'verify')
  t.equal((await me(user)).emailVerified, false, 'a new account is unverified')
  const token = await awaitToken(smtp, user.email, VERIFY)
  t.equal(smtp.mailsTo(user.email).length, 1, 'one mail: the welcome mail carries the link')
  t.equal((await verify(token)).statusCode, 204)
  t.equal((await me(user)).emailVerified, true, 'getCurrentUser says so')
  const admin = await registerAdmin(app)
  const listed = (await app.inject({ method: 'GET', url: '/users?limit=100', headers: admin.auth })).json().data
  t.equal(listed.find((entry: { id: string }) => entry.id === user.id)?.emailVerified, true, 'listUsers says so')
  const again = await verify(token)
  t.equal(again.statusCode, 400, 'the token works once')
  t.equal(again.json().error.code, 'VERIFICATION_TOKEN_INVALID')
  const requested = await app.inject({ method: 'POST', url: '/email-verification', headers: user.auth })
  t.equal(requested.statusCode, 409, 'nothing left to verify')
  t.equal(requested.json().error.code, 'EMAIL_ALREADY_VERIFIED')
})

t.test('an unknown or expired token is refused; a requested link works', async (t) => {
  const unknown = await verify('x'.repeat(43))
  t.equal(unknown.statusCode, 400)
  t.equal(unknown.json().error.code, 'VERIFICATION_TOKEN_INVALID')

  const user = await registerUser(app, 'expired')
  const first = await awaitToken(smtp, user.email, VERIFY)
  // Expired, as 24 hours later: the row's expiry moved into the past.
  await app.services.database.prisma.$executeRaw`
    update account_tokens set expires_at = now() - interval '1 second' where user_id = ${user.id}::uuid`
  t.equal((await verify(first)).json().error?.code, 'VERIFICATION_TOKEN_INVALID', 'an expired token is refused')
  const requested = await app.inject({ method: 'POST', url: '/email-verification', headers: user.auth })
  t.equal(requested.statusCode, 202)
  t.same(requested.json().data, { status: 'queued' })
  const second = await awaitToken(smtp, user.email, VERIFY, 2)
  t.not(second, first, 'a new token')
  t.equal((await verify(second)).statusCode, 204)
  t.equal((await me(user)).emailVerified, true)
})

t.test(
  'an email change needs the password, unverifies, mails the new address a link and the old one a notice',
  async (t) => {
    const user = await registerUser(app, 'mover')
    t.equal((await verify(await awaitToken(smtp, user.email, VERIFY))).statusCode, 204)
    const newEmail = uniqueEmail('moved')
    const patch = (payload: Record<string, string>) =>
      app.inject({ method: 'PATCH', url: '/me', headers: user.auth, payload })
    t.equal((await patch({ email: newEmail })).statusCode, 400, 'not without currentPassword')
    const wrong = await patch({ email: newEmail, currentPassword: 'not the password' })
    t.equal(wrong.json().error?.code, 'CURRENT_PASSWORD_INCORRECT')
    const taken = await patch({ email: (await registerUser(app, 'other')).email, currentPassword: user.password })
    t.equal(taken.statusCode, 409, 'an address another account has')
    t.equal(taken.json().error.code, 'EMAIL_TAKEN')

    const changed = await patch({ email: newEmail.toUpperCase(), currentPassword: user.password })
    t.equal(changed.statusCode, 200)
    t.match(changed.json().data, { email: newEmail, emailVerified: false })
    const token = await awaitToken(smtp, newEmail, VERIFY)
    await mailJobsSettled(app)
    const notices = smtp.mailsTo(user.email).filter((mail) => CHANGED.test(mail.raw))
    t.equal(notices.length, 1, 'the old address got one notice')
    t.match(notices[0]?.raw, newEmail, 'naming the new address')
    t.equal(tokensTo(smtp, user.email, VERIFY).length, 1, 'the old address got no new link')
    t.equal((await verify(token)).statusCode, 204)
    t.match(await me(user), { email: newEmail, emailVerified: true })
  },
)

t.test('a link sent to an address the account no longer has proves nothing', async (t) => {
  const user = await registerUser(app, 'stale')
  const token = await awaitToken(smtp, user.email, VERIFY)
  const moved = await app.inject({
    method: 'PATCH',
    url: '/me',
    headers: user.auth,
    payload: { email: uniqueEmail('elsewhere'), currentPassword: user.password },
  })
  t.equal(moved.statusCode, 200)
  t.equal((await verify(token)).json().error?.code, 'VERIFICATION_TOKEN_INVALID')
  t.equal((await me(user)).emailVerified, false)
})

t.test('a mail server that is down fails no request; the mail goes out once it is back', async (t) => {
  const user = await registerUser(app, 'down')
  await awaitToken(smtp, user.email, VERIFY)
  await mailJobsSettled(app)
  smtp.refuseAll = true
  t.teardown(() => (smtp.refuseAll = false))
  const requested = await app.inject({ method: 'POST', url: '/email-verification', headers: user.auth })
  t.equal(requested.statusCode, 202, 'accepted while every delivery is refused')
  const forgot = await app.inject({ method: 'POST', url: '/password-reset', payload: { email: user.email } })
  t.equal(forgot.statusCode, 202)
  t.ok(await waitFor(() => smtp.refusedCount(user.email) >= 2), 'both were tried and refused')
  smtp.refuseAll = false
  t.ok((await awaitToken(smtp, user.email, VERIFY, 2)).length > 20, 'the verification mail arrived after all')
})

const waitFor = async (check: () => boolean) => {
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100)))
    if (check()) return true
  return false
}

t.test('REQUIRE_VERIFIED_EMAIL: an unverified user reads but may not write until verified', async (t) => {
  const strict = await build(t, { ...database, SMTP_URL: smtp.url, REQUIRE_VERIFIED_EMAIL: 'true' }, { jobs })
  const writer = await registerUser(strict, 'strict')
  const other = await registerUser(strict, 'strict-other')
  t.equal((await verify(await awaitToken(smtp, other.email, VERIFY), strict)).statusCode, 204)
  const published = await createPost(strict, other, { status: 'published' })
  t.equal((await strict.inject({ method: 'GET', url: `/posts/${published.id}`, headers: writer.auth })).statusCode, 200)

  const refusals = [
    await strict.inject({ method: 'POST', url: '/posts', headers: writer.auth, payload: { title: 'T', body: 'B' } }),
    await strict.inject({
      method: 'POST',
      url: `/posts/${published.id}/comments`,
      headers: writer.auth,
      payload: { body: 'Hello' },
    }),
    await uploadThumbnail(strict, published.id, writer.auth, await solidImage(64, 64, 'jpeg')),
  ]
  t.same(
    refusals.map((response) => [response.statusCode, response.json().error?.code]),
    refusals.map(() => [403, 'EMAIL_NOT_VERIFIED']),
    'createPost, createComment and uploadPostThumbnail refused',
  )

  t.equal((await verify(await awaitToken(smtp, writer.email, VERIFY), strict)).statusCode, 204)
  const own = await createPost(strict, writer)
  t.ok(own.id, 'createPost allowed once verified')
  const comment = await strict.inject({
    method: 'POST',
    url: `/posts/${published.id}/comments`,
    headers: writer.auth,
    payload: { body: 'Hello' },
  })
  t.equal(comment.statusCode, 201, 'createComment allowed')
  const upload = await uploadThumbnail(strict, own.id, writer.auth, await solidImage(64, 64, 'jpeg'))
  t.equal(upload.statusCode, 200, 'uploadPostThumbnail allowed')
})
