// deleteCurrentUser for an account with many comments, or many comments on its posts: they go in
// bounded batches, the counts of the posts they were on stay exact (the rest of deleteCurrentUser:
// delete-account.test.ts).
import t from 'tap'
import { build } from '../../helpers/build.ts'
import { registerUser, type Account } from '../../helpers/accounts.ts'
import { commentCounts, createComment } from '../../helpers/content.ts'
import { createPost } from '../../helpers/posts.ts'
import { DELETION_BATCH_COMMENTS } from '../../../src/auth/accounts/account-deletion-store.ts'

type App = Awaited<ReturnType<typeof build>>
const deleteAccount = (app: App, user: Account, currentPassword = user.password) =>
  app.inject({ method: 'DELETE', url: '/me', headers: user.auth, payload: { currentPassword } })

t.test('an account with more comments than one batch deletes them all, counts exact, by an index', async (t) => {
  const app = await build(t)
  const [leaver, other] = [await registerUser(app, 'leaver'), await registerUser(app, 'other')]
  const posts = [
    await createPost(app, other, { status: 'published' }),
    await createPost(app, other, { status: 'published' }),
  ]
  const { prisma } = app.services.database
  // Past two batches (DELETION_BATCH_COMMENTS), written directly: the API would take minutes.
  const count = DELETION_BATCH_COMMENTS * 2 + 7
  await prisma.comment.createMany({
    data: Array.from({ length: count }, (_, index) => ({
      postId: posts[index % 2]!.id,
      authorId: leaver.id,
      body: `Comment ${index}`,
    })),
  })
  for (const post of posts)
    await prisma.post.update({
      where: { id: post.id },
      data: { commentCount: await prisma.comment.count({ where: { postId: post.id } }) },
    })
  const mine = await createComment(app, leaver, posts[0]!.id)
  await createComment(app, other, posts[0]!.id, { parentId: mine.id, body: 'A reply to the leaver.' })
  const stays = await createComment(app, other, posts[1]!.id)
  t.equal((await deleteAccount(app, leaver)).statusCode, 204)
  t.same(await commentCounts(app, posts[0]!.id), { stored: 0, actual: 0 }, 'every comment and the reply went')
  t.same(await commentCounts(app, posts[1]!.id), { stored: 1, actual: 1 })
  t.equal(await prisma.comment.count({ where: { id: stays.id } }), 1, 'others’ comments stay')
  // An index led by author_id: since comment moderation, (author_id, created_at desc), which the
  // flood check reads too.
  const indexes = await prisma.$queryRaw<{ indexdef: string }[]>`
    select indexdef from pg_indexes where tablename = 'comments' and indexdef like '%(author_id%'`
  t.equal(indexes.length, 1, 'comments are found by author through an index')
})

t.test('comments others wrote on the account’s posts go in bounded batches, not in one cascade', async (t) => {
  const app = await build(t)
  const [leaver, other] = [await registerUser(app, 'leaver'), await registerUser(app, 'other')]
  const own = await createPost(app, leaver, { status: 'published' })
  const { prisma } = app.services.database
  // Anyone may comment on anyone's post: past two batches, written directly (the API would take minutes).
  const count = DELETION_BATCH_COMMENTS * 2 + 7
  await prisma.comment.createMany({
    data: Array.from({ length: count }, (_, index) => ({
      postId: own.id,
      authorId: other.id,
      body: `Comment ${index}`,
    })),
  })
  // Rows of this post each statement deletes from comments, cascades included (a statement trigger).
  const log = `deleted_comments_${Date.now()}_${Math.floor(Math.random() * 1e6)}`
  await prisma.$executeRawUnsafe(`create table ${log} (rows int not null)`)
  await prisma.$executeRawUnsafe(
    `create function ${log}() returns trigger language plpgsql as $$ begin insert into ${log} select count(*) from gone where post_id = '${own.id}'; return null; end $$`,
  )
  await prisma.$executeRawUnsafe(
    `create trigger ${log} after delete on comments referencing old table as gone for each statement execute function ${log}()`,
  )
  t.teardown(async () => {
    await prisma.$executeRawUnsafe(`drop trigger if exists ${log} on comments`)
    await prisma.$executeRawUnsafe(`drop function if exists ${log}()`)
    await prisma.$executeRawUnsafe(`drop table if exists ${log}`)
  })
  t.equal((await deleteAccount(app, leaver)).statusCode, 204)
  t.equal(await prisma.comment.count({ where: { postId: own.id } }), 0, 'every comment on the post went')
  const [widest] = await prisma.$queryRawUnsafe<{ rows: number | null }[]>(`select max(rows) as rows from ${log}`)
  t.ok(
    (widest?.rows ?? 0) <= DELETION_BATCH_COMMENTS,
    `no statement deleted more than a batch (${DELETION_BATCH_COMMENTS}): the widest deleted ${widest?.rows}`,
  )
})
