// A session's lastUsedAt is kept by the per-request session check, but written at most once a
// minute per session, not on every request: counted here by a trigger that records every write
// that changes it. Time is not waited for: the session is made to look a minute older instead.
import t from 'tap'
import { build, usingPostgres } from '../../helpers/build.ts'
import { registerUser } from '../../helpers/accounts.ts'
import { createScratchDatabase } from '../../helpers/postgres.ts'

t.test('lastUsedAt is written at most once a minute per session, however many requests', async (t) => {
  // A database of its own on PostgreSQL: the trigger must not watch other test files' sessions.
  const app = await build(t, usingPostgres ? { DATABASE_URL: await createScratchDatabase(t, 'last_used') } : {})
  const { prisma } = app.services.database
  await prisma.$executeRawUnsafe('create table last_used_writes (session_id uuid not null)')
  await prisma.$executeRawUnsafe(`
    create function count_last_used_write() returns trigger language plpgsql as $$
    begin insert into last_used_writes values (new.id); return new; end $$`)
  await prisma.$executeRawUnsafe(`
    create trigger count_last_used_write after update of last_used_at on sessions for each row
    when (old.last_used_at is distinct from new.last_used_at) execute function count_last_used_write()`)
  const writes = async () =>
    (await prisma.$queryRawUnsafe<{ n: number }[]>('select count(*)::int as n from last_used_writes'))[0]!.n
  const ageSession = (id: string) =>
    prisma.$executeRaw`update sessions set last_used_at = last_used_at - interval '2 minutes' where id = ${id}::uuid`
  const lastUsedAt = async (id: string) =>
    (await prisma.session.findUniqueOrThrow({ where: { id }, select: { lastUsedAt: true } })).lastUsedAt

  const user = await registerUser(app)
  const sid = (await prisma.session.findFirstOrThrow({ where: { userId: user.id }, select: { id: true } })).id
  const started = Date.now()
  const me = () => app.inject({ method: 'GET', url: '/me', headers: user.auth })
  /** One write a minute is allowed: how many the time this test has taken so far allows. */
  const allowed = () => 1 + Math.floor((Date.now() - started) / 60_000)

  for (let request = 0; request < 20; request++) t.equal((await me()).statusCode, 200)
  t.ok(
    (await writes()) < allowed(),
    `20 requests just after sign-in: ${await writes()} writes (a fresh session counts as used)`,
  )

  await ageSession(sid)
  const before = await writes()
  const aged = await lastUsedAt(sid)
  for (let request = 0; request < 20; request++) t.equal((await me()).statusCode, 200)
  t.ok((await writes()) - before >= 1, 'a session last used over a minute ago is marked used again')
  t.ok((await writes()) - before <= allowed(), `20 more requests: ${(await writes()) - before} write(s)`)
  t.ok((await lastUsedAt(sid)) > aged, 'lastUsedAt moved on')

  await ageSession(sid)
  const beforeBurst = await writes()
  const statuses = await Promise.all(Array.from({ length: 20 }, () => me()))
  t.same(
    statuses.map((reply) => reply.statusCode),
    Array(20).fill(200),
  )
  t.equal((await writes()) - beforeBurst, 1, '20 requests at once: one write, the others find it done')
})
