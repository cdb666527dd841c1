// A token's lastUsedAt is kept by the per-request check, but written at most once a minute per
// token, not on every request: counted here by a trigger that records every write that changes it.
// Time is not waited for: the token is made to look a minute older instead.
import t from 'tap'
import { build, usingPostgres } from '../../helpers/build.ts'
import { registerUser } from '../../helpers/accounts.ts'
import { createApiToken } from '../../helpers/api-tokens.ts'
import { createScratchDatabase } from '../../helpers/postgres.ts'

t.test('lastUsedAt is written at most once a minute per token, however many requests', async (t) => {
  // A database of its own on PostgreSQL: the trigger must not watch other test files' tokens.
  const app = await build(t, usingPostgres ? { DATABASE_URL: await createScratchDatabase(t, 'token_used') } : {})
  const { prisma } = app.services.database
  await prisma.$executeRawUnsafe('create table token_used_writes (token_id uuid not null)')
  await prisma.$executeRawUnsafe(`
    create function count_token_used_write() returns trigger language plpgsql as $$
    begin insert into token_used_writes values (new.id); return new; end $$`)
  await prisma.$executeRawUnsafe(`
    create trigger count_token_used_write after update of last_used_at on api_tokens for each row
    when (old.last_used_at is distinct from new.last_used_at) execute function count_token_used_write()`)
  const writes = async () =>
    (await prisma.$queryRawUnsafe<{ n: number }[]>('select count(*)::int as n from token_used_writes'))[0]!.n
  const lastUsedAt = async (id: string) =>
    (await prisma.apiToken.findUniqueOrThrow({ where: { id }, select: { lastUsedAt: true } })).lastUsedAt
  const age = (id: string) =>
    prisma.$executeRaw`update api_tokens set last_used_at = last_used_at - interval '2 minutes' where id = ${id}::uuid`

  const owner = await registerUser(app)
  const token = await createApiToken(app, owner, { scopes: ['account:read'] })
  const me = () => app.inject({ method: 'GET', url: '/me', headers: token.auth })
  t.equal(await lastUsedAt(token.id), null, 'never used yet')
  const started = Date.now()
  const allowed = () => 1 + Math.floor((Date.now() - started) / 60_000)

  for (let request = 0; request < 20; request++) t.equal((await me()).statusCode, 200)
  t.ok((await writes()) >= 1, 'the first use is marked')
  t.ok((await writes()) <= allowed(), `20 requests: ${await writes()} write(s)`)
  const first = await lastUsedAt(token.id)
  t.ok(first !== null && Math.abs(first.getTime() - Date.now()) < 60_000, 'lastUsedAt is about now')

  await age(token.id)
  const before = await writes()
  const burst = await Promise.all(Array.from({ length: 20 }, () => me()))
  t.same(
    burst.map((reply) => reply.statusCode),
    Array(20).fill(200),
  )
  t.equal((await writes()) - before, 1, '20 requests at once, a minute on: one write, the others find it done')
  t.ok((await lastUsedAt(token.id))! > first!, 'lastUsedAt moved on')
})
