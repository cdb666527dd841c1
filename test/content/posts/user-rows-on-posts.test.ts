// Which posts show a user's rows is said in one place (src/content/posts/user-rows-on-posts.ts),
// and the schema is held to it: a table that refers to users and to posts and is in neither of its
// lists fails here. A per-user relation added without it (likes, in a trial) left the posts' cached
// counts stale after an account was deleted; the deletion deletes every listed table's rows of
// the user itself, moving the posts' stored counts of them, and names those posts to the caches.
import type { Test } from 'tap'
import t from 'tap'
import { makeAccountDeletionStore } from '../../../src/auth/accounts/account-deletion-store.ts'
import { NOT_SHOWN_ON_POSTS, USER_ROWS_ON_POSTS } from '../../../src/content/posts/user-rows-on-posts.ts'
import { build, usingPostgres } from '../../helpers/build.ts'
import { registerUser } from '../../helpers/accounts.ts'
import { createScratchDatabase } from '../../helpers/postgres.ts'
import { createPost } from '../../helpers/posts.ts'

type App = Awaited<ReturnType<typeof build>>

/** A database of its own: the test adds a table, which the shared one must not see. */
const ownDatabase = async (t: Test): Promise<Record<string, string>> =>
  usingPostgres ? { DATABASE_URL: await createScratchDatabase(t, 'user_rows') } : {}

/** Each table of the schema with a foreign key to users and one to posts, with those keys' columns. */
async function tablesReferringToUsersAndPosts(app: App) {
  const keys = await app.services.database.prisma.$queryRaw<{ table: string; refers: string; column: string }[]>`
    select c.conrelid::regclass::text as table, c.confrelid::regclass::text as refers, a.attname as column
    from pg_constraint c join pg_attribute a on a.attrelid = c.conrelid and a.attnum = c.conkey[1]
    where c.contype = 'f' and c.confrelid in ('users'::regclass, 'posts'::regclass)
      and c.connamespace = 'public'::regnamespace`
  const tables = new Map<string, { userColumns: string[]; postColumns: string[] }>()
  for (const { table, refers, column } of keys) {
    const entry = tables.get(table) ?? { userColumns: [], postColumns: [] }
    ;(refers === 'users' ? entry.userColumns : entry.postColumns).push(column)
    tables.set(table, entry)
  }
  return [...tables].filter(([, { userColumns, postColumns }]) => userColumns.length > 0 && postColumns.length > 0)
}

/** What the check says of the schema: each table relating users to posts that is not accounted for. */
async function unaccounted(app: App) {
  return (await tablesReferringToUsersAndPosts(app))
    .filter(([table, { userColumns, postColumns }]) => {
      if (table in NOT_SHOWN_ON_POSTS) return false
      return !USER_ROWS_ON_POSTS.some(
        (rows) =>
          rows.table === table && userColumns.includes(rows.userColumn) && postColumns.includes(rows.postColumn),
      )
    })
    .map(([table]) => table)
}

const LIKES = `
  create table likes (
    user_id uuid not null references users (id) on delete cascade,
    post_id uuid not null references posts (id) on delete cascade,
    primary key (user_id, post_id))`

t.test('the schema is held to the list, and deletion handles every listed table', async (t) => {
  const app = await build(t, await ownDatabase(t))
  const { prisma } = app.services.database

  await t.test('every table relating a user to a post is listed, with the columns it relates them by', async (t) => {
    const tables = (await tablesReferringToUsersAndPosts(app)).map(([table]) => table)
    t.ok(tables.includes('comments'), 'the check sees the relation there is')
    t.same(await unaccounted(app), [], 'each is in USER_ROWS_ON_POSTS or NOT_SHOWN_ON_POSTS')
    for (const table of Object.keys(NOT_SHOWN_ON_POSTS))
      t.ok(tables.includes(table), `${table}, said to show nothing on posts, still relates users to posts`)
  })

  // The trial's relation, added without a word in user-rows-on-posts.ts.
  await prisma.$executeRawUnsafe(LIKES)

  await t.test('a new table relating users to posts, listed nowhere, fails the check', async (t) => {
    t.same(await unaccounted(app), ['likes'])
  })

  await t.test('once listed, deleting an account names every post that showed a row, its count moved', async (t) => {
    // The trial's count on the post, kept by the writes that like and unlike.
    await prisma.$executeRawUnsafe('alter table posts add column like_count integer not null default 0')
    const like = (userId: string, postId: string) =>
      prisma.$transaction([
        prisma.$executeRaw`insert into likes (user_id, post_id) values (${userId}::uuid, ${postId}::uuid)`,
        prisma.$executeRaw`update posts set like_count = like_count + 1 where id = ${postId}::uuid`,
      ])
    const likeCount = async (postId: string) =>
      (await prisma.$queryRaw<{ n: number }[]>`select like_count as n from posts where id = ${postId}::uuid`)[0]?.n
    const [leaver, other, stayer] = ['leaver', 'other', 'stayer'].map(async (label) => registerUser(app, label))
    const [gone, author, stays] = await Promise.all([leaver, other, stayer])
    const liked = await createPost(app, author!, { status: 'published' })
    const unliked = await createPost(app, author!, { status: 'published' })
    await like(gone!.id, liked.id)
    await like(stays!.id, liked.id)
    t.equal(await likeCount(liked.id), 2)
    const [row] = await prisma.$queryRaw<{ hash: string }[]>`
      select password_hash as hash from users where id = ${gone!.id}::uuid`
    const likes = {
      table: 'likes',
      userColumn: 'user_id',
      postColumn: 'post_id',
      shows: 'likeCount',
      countedIn: 'like_count',
    }
    const deletions = makeAccountDeletionStore(prisma, { rowsOnPosts: [...USER_ROWS_ON_POSTS, likes] })
    const deleted = await deletions.deleteUser(gone!.id, row!.hash)
    t.same(typeof deleted === 'object' ? deleted.touchedPostIds : deleted, [liked.id], 'the liked post alone')
    t.equal(await likeCount(liked.id), 1, "the stored count lost the leaver's like, kept the other")
    t.equal(await likeCount(unliked.id), 0)
  })
})
