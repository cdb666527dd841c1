// Two instances on one PostgreSQL, both working the account-email queue: each reset request,
// made through either, mails exactly one link, also when the mail server refused the first try
// (the retry may run on the other instance), and the link works through either instance.
import t from 'tap'
import { build, usingPostgres } from '../../helpers/build.ts'
import { login, registerUser, uniqueEmail, type Account } from '../../helpers/accounts.ts'
import { mailJobsSettled, RESET, tokensTo } from '../../helpers/account-mail.ts'
import { createScratchDatabase } from '../../helpers/postgres.ts'
import { startSmtpServer } from '../../helpers/smtp.ts'

const skip = usingPostgres ? false : 'needs PostgreSQL: the embedded database belongs to one process (set DATABASE_URL)'
const jobs = { pollingIntervalSeconds: 0.5, retryDelaySeconds: 1 }

t.test('one reset request, two instances: exactly one mail', { skip }, async (t) => {
  const smtp = await startSmtpServer()
  t.teardown(smtp.close)
  const env = { DATABASE_URL: await createScratchDatabase(t, 'fleet_reset'), SMTP_URL: smtp.url }
  const [one, two] = [await build(t, env, { jobs }), await build(t, env, { jobs })]
  const users: Account[] = []
  for (let index = 0; index < 8; index++) {
    users.push(await registerUser(index % 2 === 0 ? one : two, 'fleet-reset', uniqueEmail('fleet-reset')))
  }
  await mailJobsSettled(one)
  for (const [index, user] of users.entries()) {
    // Some first attempts are refused, so retries (picked up by either instance) are part of it.
    if (index % 3 === 0) smtp.refuseFirst.add(user.email)
    const asked = await (index % 2 === 0 ? two : one).inject({
      method: 'POST',
      url: '/password-reset',
      payload: { email: user.email },
    })
    t.equal(asked.statusCode, 202)
  }
  await mailJobsSettled(one)
  t.same(
    users.map((user) => tokensTo(smtp, user.email, RESET).length),
    users.map(() => 1),
    'one reset mail per request, across both instances',
  )
  t.same(
    users.map((user) => smtp.refusedCount(user.email) > 0),
    users.map((_, index) => index % 3 === 0),
    'the refused first attempts were retried',
  )
  const [first] = users
  const token = tokensTo(smtp, first!.email, RESET)[0]!
  const reset = await two.inject({
    method: 'POST',
    url: '/password-reset/confirm',
    payload: { token, password: 'a fleet-wide password' },
  })
  t.equal(reset.statusCode, 204, 'the link works on the instance that did not mail it, or on the one that did')
  t.equal((await login(one, first!.email, 'a fleet-wide password')).statusCode, 200)
  t.equal(
    (await one.inject({ method: 'GET', url: '/me', headers: first!.auth })).json().error?.code,
    'SESSION_REVOKED',
    'its old sessions are refused by the other instance at once',
  )
})
