// What others cannot see must not move what they can: a held comment, and every change between
// statuses others never see (pending, spam, hidden), leaves the post's updatedAt as it was and
// sends no cache event (the lists' generation stays), so no reader polling posts learns when a
// comment was held, marked spam or deleted unseen. Only a change to what others see moves them.
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { registerAdmin, registerUser, type Account } from '../../helpers/accounts.ts'
import { build, usingPostgres } from '../../helpers/build.ts'
import { createScratchDatabase } from '../../helpers/postgres.ts'
import { createPostRecord } from '../../helpers/content.ts'
import { moderate } from '../../helpers/moderation.ts'

const comment = (app: FastifyInstance, who: Account, postId: string, body: string) =>
  app.inject({ method: 'POST', url: `/posts/${postId}/comments`, headers: who.auth, payload: { body } })

/** The post's updatedAt as a reader gets it, and the lists' generation (moved by every cache event). */
async function seen(app: FastifyInstance, postId: string) {
  const post = await app.inject({ url: `/posts/${postId}` })
  const [row] = await app.services.database.prisma.$queryRaw<{ value: bigint }[]>`
    select value from list_generations where id = 1`
  return { updatedAt: post.json().data.updatedAt as string, generation: String(row?.value ?? 0n) }
}

t.test('held comments and changes among unseen statuses move neither updatedAt nor the caches', async (t) => {
  // No post cache: every read shows the post's row as stored.
  // On PostgreSQL a database of its own: the lists' generation is the database's, which other test
  // files' writes beside this one would move.
  const app = await build(t, {
    ...(usingPostgres ? { DATABASE_URL: await createScratchDatabase(t, 'quiet_moderation') } : {}),
    COMMENT_MODERATION: 'all',
    POST_CACHE_MAX_ENTRIES: '0',
  })
  const [admin, author, reader] = [await registerAdmin(app), await registerUser(app, 'author'), await registerUser(app)]
  const postId = (await createPostRecord(app, { author })).id
  const before = await seen(app, postId)

  const held = await comment(app, reader, postId, 'Held for now.')
  t.equal(held.json().data.status, 'pending')
  const id = held.json().data.id as string
  t.same(await seen(app, postId), before, 'a held comment')
  for (const [status, why] of [
    ['spam', 'pending → spam'],
    ['hidden', 'spam → hidden'],
    ['pending', 'hidden → pending'],
  ] as const) {
    t.equal((await moderate(app, admin, id, status)).statusCode, 200, why)
    t.same(await seen(app, postId), before, why)
  }
  t.equal((await app.inject({ method: 'DELETE', url: `/comments/${id}`, headers: reader.auth })).statusCode, 204)
  t.same(await seen(app, postId), before, 'a held comment deleted')

  const other = (await comment(app, reader, postId, 'Soon approved.')).json().data.id as string
  t.equal((await moderate(app, admin, other, 'published')).statusCode, 200)
  const approved = await seen(app, postId)
  t.not(approved.updatedAt, before.updatedAt, 'an approval changes what others see: updatedAt moves')
  t.not(approved.generation, before.generation, 'and the caches hear of it')
  t.equal((await moderate(app, admin, other, 'hidden')).statusCode, 200)
  const hidden = await seen(app, postId)
  t.not(hidden.generation, approved.generation, 'hiding a published comment: the caches hear of it')
  t.equal((await moderate(app, admin, other, 'spam')).statusCode, 200)
  t.same(await seen(app, postId), hidden, 'hidden → spam: nothing others see')
})
