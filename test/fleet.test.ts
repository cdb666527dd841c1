// Two instances on one PostgreSQL, as behind a load balancer: each job runs once across the fleet
// (welcome mails, scheduled publications), a logout, a role change, the login and registration
// limits hold on both, and an image uploaded through one is served by the other. (Post-cache
// invalidation across instances is tested with the cache.)
import { randomUUID } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import t from 'tap'
import { build, usingPostgres } from './helpers/build.ts'
import { login, registerAdmin, registerUser, uniqueEmail, type Account } from './helpers/accounts.ts'
import { eventually, keysOf, solidImage, uploadThumbnail } from './helpers/images.ts'
import { createScratchDatabase } from './helpers/postgres.ts'
import { createPost, makeDue, publicationJobsOf } from './helpers/posts.ts'
import { startSmtpServer } from './helpers/smtp.ts'
import { WELCOME_EMAIL_QUEUE } from '../src/jobs/welcome-email.ts'

const skip = usingPostgres ? false : 'needs PostgreSQL: the embedded database belongs to one process (set DATABASE_URL)'
// Jobs are polled every half second, so waits for them are short (and bounded, ≤ 30 s).
const jobs = { pollingIntervalSeconds: 0.5, retryDelaySeconds: 1 }

t.test('each welcome mail is sent exactly once with two instances working the queue', { skip }, async (t) => {
  const smtp = await startSmtpServer()
  t.teardown(smtp.close)
  // A database of their own: no other test file's workers may take these jobs.
  const env = { DATABASE_URL: await createScratchDatabase(t, 'fleet_jobs'), SMTP_URL: smtp.url }
  const [one, two] = [await build(t, env, { jobs }), await build(t, env, { jobs })]
  const users: Account[] = []
  for (let index = 0; index < 12; index++) {
    // Some first attempts are refused, so retries (picked up by either instance) are part of it.
    const email = uniqueEmail('fleet')
    if (index % 3 === 0) smtp.refuseFirst.add(email)
    users.push(await registerUser(index % 2 === 0 ? one : two, 'fleet', email))
  }
  const completed = async (user: Account) =>
    (await one.services.queue.boss.getJobById(WELCOME_EMAIL_QUEUE, user.id))?.state === 'completed'
  t.ok(await eventually(async () => (await Promise.all(users.map(completed))).every(Boolean)), 'every job completed')
  t.same(
    users.map((user) => smtp.mailsTo(user.email).length),
    users.map(() => 1),
    'one mail per user, across both instances',
  )
  t.same(
    users.map((user) => smtp.refusedCount(user.email) > 0),
    users.map((_, index) => index % 3 === 0),
    'the refused first attempts were retried',
  )
})

t.test('a scheduled post is published once, by one of the two instances', { skip }, async (t) => {
  // Each instance's log lines, to count who ran the publication job and how often.
  const lines: Record<string, unknown>[][] = [[], []]
  const logTo = (index: number) => ({
    write: (line: string) => void lines[index]!.push(JSON.parse(line) as Record<string, unknown>),
  })
  const env = { DATABASE_URL: await createScratchDatabase(t, 'fleet_publish'), LOG_LEVEL: 'info' }
  const [one, two] = [
    await build(t, env, { jobs, logDestination: logTo(0) }),
    await build(t, env, { jobs, logDestination: logTo(1) }),
  ]
  const author = await registerUser(one)
  const post = await createPost(one, author, {
    status: 'scheduled',
    publishedAt: new Date(Date.now() + 3_600_000).toISOString(),
  })
  t.equal(post.status, 'scheduled')
  await makeDue(one, post.id)
  const allCompleted = async () => {
    const jobs = await publicationJobsOf(one, post.id)
    return jobs.length > 0 && jobs.every((job) => job.state === 'completed')
  }
  t.ok(await eventually(allCompleted), 'its publication jobs all completed')
  t.equal(
    (await two.inject({ method: 'GET', url: `/posts/${post.id}` })).json().data.status,
    'published',
    'published, as both instances see',
  )
  const runs = lines.map((instance) => instance.filter((entry) => entry.postId === post.id))
  t.equal(runs.flat().length, 1, 'the publication job ran once across the fleet')
  t.equal(runs.flat()[0]?.msg, 'scheduled post published')
})

t.test('logout and role changes reach every instance at once', { skip }, async (t) => {
  const [one, two] = [await build(t), await build(t)]
  const user = await registerUser(one)
  const second = (await login(two, user.email, user.password)).json().data
  t.equal(
    (await two.inject({ method: 'GET', url: '/me', headers: user.auth })).statusCode,
    200,
    'a token from instance 1 works on instance 2',
  )

  t.equal((await one.inject({ method: 'POST', url: '/logout', headers: user.auth })).statusCode, 204)
  const after = await two.inject({ method: 'GET', url: '/me', headers: user.auth })
  t.equal(after.statusCode, 401, 'logged out through instance 1, refused by instance 2')
  t.equal(after.json().error.code, 'SESSION_REVOKED')
  const refreshed = await two.inject({ method: 'POST', url: '/refresh', payload: { refreshToken: user.refreshToken } })
  t.equal(refreshed.statusCode, 401, 'its refresh token too')
  t.equal(
    (await two.inject({ method: 'GET', url: '/me', headers: { authorization: `Bearer ${second.accessToken}` } }))
      .statusCode,
    200,
    'the other session lives on',
  )

  const admin = await registerAdmin(two)
  t.equal((await one.inject({ method: 'GET', url: '/users', headers: admin.auth })).statusCode, 200)
  const otherAdmin = await registerAdmin(one)
  t.equal(
    (
      await one.inject({
        method: 'PATCH',
        url: `/users/${admin.id}`,
        headers: otherAdmin.auth,
        payload: { role: 'user' },
      })
    ).statusCode,
    200,
  )
  t.equal(
    (await two.inject({ method: 'GET', url: '/users', headers: admin.auth })).statusCode,
    403,
    'demoted through instance 1, refused by instance 2',
  )
})

t.test('login limits are shared: failures on either instance count for both', { skip }, async (t) => {
  const env = { LOGIN_LIMIT_PER_ACCOUNT: '4', LOGIN_LIMIT_PER_ADDRESS: '1000' }
  const [one, two] = [await build(t, env), await build(t, env)]
  const user = await registerUser(one)
  for (let attempt = 1; attempt <= 4; attempt++) {
    const instance = attempt % 2 === 0 ? two : one
    t.equal(
      (await login(instance, user.email, 'wrong password')).statusCode,
      401,
      `failure ${attempt} on instance ${attempt % 2 === 0 ? 2 : 1}`,
    )
  }
  t.equal((await login(one, user.email, user.password)).statusCode, 429, 'refused on instance 1')
  t.equal((await login(two, user.email, user.password)).statusCode, 429, 'and on instance 2')
  // Per address too, from an address of this test's own.
  const remoteAddress = `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.11`
  const [a, b] = [await build(t, { LOGIN_LIMIT_PER_ADDRESS: '2' }), await build(t, { LOGIN_LIMIT_PER_ADDRESS: '2' })]
  const from = (app: FastifyInstance) =>
    app.inject({
      method: 'POST',
      url: '/login',
      remoteAddress,
      payload: { email: `${randomUUID()}@example.com`, password: 'whatever password' },
    })
  t.equal((await from(a)).statusCode, 401)
  t.equal((await from(b)).statusCode, 401)
  t.equal((await from(a)).statusCode, 429, 'the address limit, reached across both instances')
})

t.test(
  'the registration limit per address is shared: registrations on either instance count for both',
  { skip },
  async (t) => {
    const env = { REGISTER_LIMIT_PER_ADDRESS: '2' }
    const [one, two] = [await build(t, env), await build(t, env)]
    // An address of this test's own: on a shared PostgreSQL the hourly counts outlive a run.
    const remoteAddress = `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.12`
    const register = (app: FastifyInstance) =>
      app.inject({
        method: 'POST',
        url: '/register',
        remoteAddress,
        payload: { email: uniqueEmail('fleet-limit'), password: 'a long enough password', name: 'Limit' },
      })
    t.equal((await register(one)).statusCode, 201, 'first registration, on instance 1')
    t.equal((await register(two)).statusCode, 201, 'second, on instance 2')
    const refused = await register(one)
    t.equal(refused.statusCode, 429, 'the third, on instance 1, is over the limit of 2 counted across both')
    t.equal(refused.json().error.code, 'RATE_LIMITED')
    t.equal((await register(two)).statusCode, 429, 'and on instance 2')
  },
)

t.test('an image uploaded through one instance is served by the other', { skip }, async (t) => {
  // Revisions off: they keep the thumbnails they recorded (revisions/images.test.ts); here the sweep
  // of images nothing uses is what both instances must agree on.
  const noRevisions = { POST_REVISIONS_MAX: '0' }
  const [one, two] = [await build(t, noRevisions, { jobs }), await build(t, noRevisions, { jobs })]
  const statusOf = async (app: FastifyInstance, key: string) =>
    (await app.inject({ method: 'GET', url: `/images/${key}` })).statusCode
  const allAnswer = async (app: FastifyInstance, keys: string[], status: number) =>
    (await Promise.all(keys.map((key) => statusOf(app, key)))).every((s) => s === status)
  const upload = async (app: FastifyInstance, postId: string, account: Account, image: Buffer) => {
    const response = await uploadThumbnail(app, postId, account.auth, image)
    if (response.statusCode !== 200) throw new Error(`upload: ${response.statusCode} ${response.body}`)
    return keysOf(response.json().data)
  }
  const author = await registerUser(one)
  const post = await createPost(one, author, { status: 'published' })
  const keys = await upload(one, post.id, author, await solidImage(1500, 1000, 'jpeg', '#cc8844'))
  t.equal(keys.length, 3)
  for (const key of keys) {
    const [viaOne, viaTwo] = [
      await one.inject({ method: 'GET', url: `/images/${key}` }),
      await two.inject({ method: 'GET', url: `/images/${key}` }),
    ]
    t.equal(viaTwo.statusCode, 200, `instance 2 serves ${key}`)
    t.equal(viaTwo.headers['content-type'], 'image/webp')
    t.ok(viaTwo.rawPayload.equals(viaOne.rawPayload), 'the same bytes')
  }
  t.same(
    keysOf((await two.inject({ method: 'GET', url: `/posts/${post.id}` })).json().data),
    keys,
    'instance 2 shows the thumbnail',
  )

  const replaced = await upload(two, post.id, author, await solidImage(1500, 1000, 'jpeg', '#4488cc'))
  t.ok(await allAnswer(one, replaced, 200), 'replaced through instance 2, served by instance 1')
  t.ok(await eventually(() => allAnswer(one, keys, 404)), 'and the old images are gone for instance 1 too')
})

t.test(
  'instances starting together on a new database with ADMIN_EMAIL all start, with one admin',
  { skip },
  async (t) => {
    const email = `first-admin-${randomUUID()}@example.com`
    const env = {
      DATABASE_URL: await createScratchDatabase(t, 'fleet_admin'),
      ADMIN_EMAIL: email,
      ADMIN_PASSWORD: 'first admin password',
    }
    const instances = await Promise.all([build(t, env), build(t, env), build(t, env)])
    for (const [index, instance] of instances.entries()) {
      t.equal(
        (await login(instance, email, 'first admin password')).json().data?.user.role,
        'admin',
        `instance ${index + 1}`,
      )
    }
  },
)
