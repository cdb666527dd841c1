// The scheduled clean-up deletes what only grows: expired rate-limit counters, sessions that
// ended (revoked or expired) more than a day ago, with their refresh tokens, and email verification
// and password reset tokens that expired more than a day ago. It keeps every token
// of a live session, used ones included, so presenting a used one still ends the session (reuse
// detection), and a run deletes in bounded batches. Through real pg-boss on either database.
import { createHash, randomUUID } from 'node:crypto'
import t from 'tap'
import { CLEAN_UP_ACCOUNTS_QUEUE } from '../../src/jobs/clean-up-accounts.ts'
import { build } from '../helpers/build.ts'
import { login, registerUser } from '../helpers/accounts.ts'
import { eventually } from '../helpers/images.ts'

type App = Awaited<ReturnType<typeof build>>
const DAY = 86_400_000

async function counter(app: App, key: string, resetInMs: number) {
  await app.services.database.prisma.rateLimitCounter.create({
    data: { key, count: 3, resetAt: new Date(Date.now() + resetInMs) },
  })
}

/** A session of a fresh user, its one refresh token and its id. */
async function session(app: App) {
  const user = await registerUser(app, 'clean-up')
  const [row] = await app.services.database.prisma.session.findMany({ where: { userId: user.id } })
  return { user, id: row!.id }
}

t.test(
  'expired counters and long-ended sessions go; live counters, recently ended and live sessions stay',
  async (t) => {
    const app = await build(t, {}, { jobs: { pollingIntervalSeconds: 0.5 } })
    const { prisma } = app.services.database
    const run = randomUUID()
    await counter(app, `test:clean-up:${run}:expired`, -60_000)
    await counter(app, `test:clean-up:${run}:live`, 3_600_000)

    const revokedLongAgo = await session(app)
    await prisma.session.update({
      where: { id: revokedLongAgo.id },
      data: { revokedAt: new Date(Date.now() - 2 * DAY) },
    })
    const expiredLongAgo = await session(app)
    await prisma.session.update({
      where: { id: expiredLongAgo.id },
      data: { expiresAt: new Date(Date.now() - 2 * DAY) },
    })
    const revokedJustNow = await session(app)
    t.equal((await app.inject({ method: 'POST', url: '/logout', headers: revokedJustNow.user.auth })).statusCode, 204)
    // A live session whose first refresh token was exchanged: the used one must stay for reuse detection.
    const live = await session(app)
    const rotated = await app.inject({
      method: 'POST',
      url: '/refresh',
      payload: { refreshToken: live.user.refreshToken },
    })
    t.equal(rotated.statusCode, 200)

    // Email verification tokens: one expired two days ago, one expired a moment ago, one live.
    const tokenOwner = await registerUser(app, 'clean-up-tokens')
    const accountToken = (label: string, expiresInMs: number) =>
      prisma.accountToken.create({
        data: {
          userId: tokenOwner.id,
          purpose: 'email_verification',
          tokenHash: createHash('sha256').update(`${run}:${label}`).digest('hex'),
          email: tokenOwner.email,
          requestedAt: new Date(Date.now() + expiresInMs - DAY),
          expiresAt: new Date(Date.now() + expiresInMs),
        },
      })
    const expiredToken = await accountToken('expired', -2 * DAY)
    const justExpiredToken = await accountToken('just-expired', -60_000)
    const liveToken = await accountToken('live', DAY)

    const schedules = (await app.services.queue.boss.getSchedules()).filter(
      (schedule) => schedule.name === CLEAN_UP_ACCOUNTS_QUEUE,
    )
    t.match(schedules, [{ cron: '23 * * * *' }], 'scheduled hourly: one schedule row for the whole fleet')
    t.equal(schedules.length, 1)
    await app.services.queue.boss.send(CLEAN_UP_ACCOUNTS_QUEUE, {})
    const sessionGone = async (id: string) => (await prisma.session.count({ where: { id } })) === 0
    t.ok(
      await eventually(async () => (await sessionGone(revokedLongAgo.id)) && (await sessionGone(expiredLongAgo.id))),
      'the long-ended sessions go',
    )
    const tokensOf = (sessionId: string) => prisma.refreshToken.count({ where: { sessionId } })
    t.equal(await tokensOf(revokedLongAgo.id), 0, 'with their refresh tokens')
    t.equal(
      await prisma.rateLimitCounter.count({ where: { key: `test:clean-up:${run}:expired` } }),
      0,
      'the expired counter goes',
    )
    t.equal(
      await prisma.rateLimitCounter.count({ where: { key: `test:clean-up:${run}:live` } }),
      1,
      'the live counter stays',
    )
    const tokenLeft = async (id: string) => (await prisma.accountToken.count({ where: { id } })) === 1
    t.ok(await eventually(async () => !(await tokenLeft(expiredToken.id))), 'an account token expired long ago goes')
    t.ok(await tokenLeft(justExpiredToken.id), 'one expired a moment ago stays a day')
    t.ok(await tokenLeft(liveToken.id), 'a live one stays')
    t.notOk(await sessionGone(revokedJustNow.id), 'a session ended a moment ago stays (a refresh may be in flight)')
    t.equal(await tokensOf(live.id), 2, 'a live session keeps its used token and its current one')

    const reused = await app.inject({
      method: 'POST',
      url: '/refresh',
      payload: { refreshToken: live.user.refreshToken },
    })
    t.equal(reused.statusCode, 401, 'presenting the used token is still caught')
    const current = await app.inject({
      method: 'POST',
      url: '/refresh',
      payload: { refreshToken: rotated.json().data.refreshToken },
    })
    t.equal(current.statusCode, 401, 'and still ends the whole session')
    t.equal((await login(app, live.user.email, live.user.password)).statusCode, 200, 'the owner signs in again')
  },
)

t.test('a run deletes in batches, at most so many, and says when more is left', async (t) => {
  const app = await build(t, {}, { jobs: { pollingIntervalSeconds: 60 } })
  const run = randomUUID()
  for (let index = 0; index < 6; index++) await counter(app, `test:clean-up:${run}:${index}`, -60_000)
  const cleanUp = app.services.accountCleanup
  const first = await cleanUp({ batchSize: 2, maxBatches: 2 })
  t.equal(first.counters, 4, 'two batches of two')
  t.ok(first.more, 'and more is left')
  let runs = 1
  for (let next = first; next.more; runs++) next = await cleanUp({ batchSize: 2, maxBatches: 2 })
  t.ok(runs >= 2, `the rest goes in later runs (${runs} in all)`)
  t.equal(
    await app.services.database.prisma.rateLimitCounter.count({
      where: { key: { startsWith: `test:clean-up:${run}:` } },
    }),
    0,
  )
})
