// The data layer of deleting an account (deleteCurrentUser). The account's comments on other
// people's posts, with the replies to them, go first, then everyone's comments on the account's
// own posts, in batches of bounded size, each its own transaction that moves those posts' comment
// counts by exactly the rows that went. The user's row then goes in one last transaction; their
// posts (with their categories' links and thumbnails, and any comment written since the batches)
// and their sessions follow it by ON DELETE CASCADE.
//
// Why batches: one statement over a heavy account's comments, or over the comments others wrote
// on its posts (anyone can add those), hundreds of thousands of rows, runs past any request's time
// budget and rolls back, so the account could never be deleted. Each batch commits, so a request cut short (503) leaves less to do and the next attempt finishes;
// what went is what the account's owner asked to delete, with the right password.
import { Prisma, type PrismaClient } from '../../generated/prisma/client.ts'
import type { Tx } from '../../db/transaction.ts'
import type { UserDeletion } from '../account-store.ts'
import { USER_ROWS_ON_POSTS, type UserRowsOnPosts } from '../../content/posts/user-rows-on-posts.ts'

/** Comments deleted per batch transaction. */
export const DELETION_BATCH_COMMENTS = 500
/** Attempts of a transaction that PostgreSQL chose as a deadlock's victim (40P01) before giving up. */
const DEADLOCK_ATTEMPTS = 4

export interface AccountDeletionOptions {
  /** DATABASE_TIMEOUT_MS: each statement is cut off by the server a little sooner (as post writes are). */
  databaseTimeoutMs?: number
  /** The tables whose rows of the user show on posts; USER_ROWS_ON_POSTS (a test adds one). */
  rowsOnPosts?: readonly UserRowsOnPosts[]
}

const isDeadlock = (error: unknown) =>
  error instanceof Prisma.PrismaClientKnownRequestError &&
  (error.code === 'P2034' || JSON.stringify(error.meta ?? {}).includes('40P01'))

/** Runs `attempt` again when it was a deadlock's victim: it rolled back, so trying again is safe. */
async function retryingDeadlocks<T>(attempt: () => Promise<T>): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return await attempt()
    } catch (error) {
      if (!isDeadlock(error) || tries >= DEADLOCK_ATTEMPTS) throw error
    }
  }
}

/** Locks posts' rows in id order: the lock every comment and post write takes first. */
async function lockPosts(tx: Tx, ids: string[]) {
  if (ids.length > 0) await tx.$queryRaw`select id from posts where id = any(${ids}::uuid[]) order by id for update`
}

/**
 * Deletes the comments `ids` and the replies to them, moving their posts' counts by the published
 * rows that went (the count is of published comments only); the posts must be locked. Replies sit
 * on their parent's post (one level, same post).
 */
async function deleteComments(tx: Tx, ids: string[]) {
  await tx.$executeRaw`
    with gone as (
      delete from comments where id = any(${ids}::uuid[]) or parent_id = any(${ids}::uuid[]) returning post_id, status),
    counts as (select post_id, count(*)::int as n from gone where status = 'published' group by post_id)
    update posts set comment_count = posts.comment_count - counts.n, updated_at = now()
    from counts where posts.id = counts.post_id`
}

/** Up to `limit` of the user's comments on other people's posts, by the comments.author_id index. */
const commentsOnOthersPosts = (tx: Tx, userId: string, limit: number) =>
  tx.$queryRaw<{ id: string; postId: string }[]>`
    select c.id, c.post_id as "postId" from comments c
    where c.author_id = ${userId}::uuid
      and not exists (select 1 from posts p where p.id = c.post_id and p.author_id = ${userId}::uuid)
    limit ${limit}`

/** Up to `limit` comments, anyone's, on the user's own posts (posts by author, then comments by post). */
const commentsOnOwnPosts = (tx: Tx, userId: string, limit: number) =>
  tx.$queryRaw<{ id: string; postId: string }[]>`
    select c.id, c.post_id as "postId" from posts p join comments c on c.post_id = p.id
    where p.author_id = ${userId}::uuid
    limit ${limit}`

type FindComments = typeof commentsOnOwnPosts

/**
 * The posts that show a row of the user's (src/content/posts/user-rows-on-posts.ts): comments
 * today, every such table tomorrow. Table and column names are constants of that list, never input.
 */
const postsShowingRowsOf = (rowsOnPosts: readonly UserRowsOnPosts[], userId: string) =>
  Prisma.join(
    rowsOnPosts.map(
      ({ table, userColumn, postColumn }) =>
        Prisma.sql`select ${Prisma.raw(postColumn)} as id from ${Prisma.raw(table)} where ${Prisma.raw(userColumn)} = ${userId}::uuid`,
    ),
    ' union ',
  )

/**
 * Up to `limit` of the user's rows of a listed table (user-rows-on-posts.ts), by the posts they are
 * on: those posts locked first, in id order, then every row of the user's on them deleted and each
 * post's count of them (`countedIn`) moved by the rows that went. The posts; none when none was left.
 * Names come from that list's constants, never from input.
 */
async function deleteRowsOnPosts(tx: Tx, rows: UserRowsOnPosts, userId: string, limit: number): Promise<string[]> {
  const [table, user, post] = [rows.table, rows.userColumn, rows.postColumn].map((name) => Prisma.raw(name))
  const found = await tx.$queryRaw<{ id: string }[]>`
    select distinct t.post_id::text as id from (
      select ${post} as post_id from ${table} where ${user} = ${userId}::uuid limit ${limit}) t`
  const postIds = found.map((row) => row.id).sort()
  if (postIds.length === 0) return []
  await lockPosts(tx, postIds)
  const gone = Prisma.sql`delete from ${table} where ${user} = ${userId}::uuid and ${post} = any(${postIds}::uuid[])
    returning ${post} as post_id`
  if (rows.countedIn === null) await tx.$executeRaw`${gone}`
  else {
    const counted = Prisma.raw(rows.countedIn)
    await tx.$executeRaw`
      with gone as (${gone}), counts as (select post_id, count(*)::int as n from gone group by post_id)
      update posts set ${counted} = posts.${counted} - counts.n, updated_at = now()
      from counts where posts.id = counts.post_id`
  }
  return postIds
}

interface UserRow {
  id: string
  role: string
  password_hash: string
}

interface LastStep {
  userId: string
  verifiedHash: string
  /** The user's role as first read; checked again under the lock. */
  role: string
  rowsOnPosts: readonly UserRowsOnPosts[]
  /** The posts, not the user's own, whose representation the deletion changes: added to. */
  touched: Set<string>
}

/**
 * The last step of deleting an account, in its transaction: the posts locked in id order, the
 * user's row checked again under its lock (and the admins' rows, for an admin), what was written
 * since the batches deleted, then the user's row, whose sessions and posts follow it by cascade.
 */
async function deleteUserRow(
  tx: Tx,
  { userId, verifiedHash, role, rowsOnPosts, touched }: LastStep,
): Promise<UserDeletion> {
  // FOR UPDATE cannot go with UNION: the ids are read, then locked in order.
  const own = await tx.$queryRaw<{ id: string }[]>`select id from posts where author_id = ${userId}::uuid`
  const showing = await tx.$queryRaw<{ id: string }[]>`${postsShowingRowsOf(rowsOnPosts, userId)}`
  const ownIds = new Set(own.map((row) => row.id))
  const ids = [...new Set([...ownIds, ...showing.map((row) => row.id)])].sort()
  await lockPosts(tx, ids)
  // The posts that showed the user's rows show something else once they go.
  for (const { id } of showing) if (!ownIds.has(id)) touched.add(id)
  const rows = await (role === 'admin'
    ? tx.$queryRaw<UserRow[]>`
        select id, role, password_hash from users where id = ${userId}::uuid or role = 'admin' order by id for update`
    : tx.$queryRaw<UserRow[]>`select id, role, password_hash from users where id = ${userId}::uuid for update`)
  const me = rows.find((row) => row.id === userId)
  if (!me) return 'gone'
  if (me.password_hash !== verifiedHash) return 'password-changed'
  if (me.role === 'admin') {
    // Made an admin since it was read: the other admins' rows are locked now (out of order:
    // a deadlock this rare is retried).
    const admins =
      role === 'admin'
        ? rows
        : await tx.$queryRaw<
            UserRow[]
          >`select id, role, password_hash from users where role = 'admin' order by id for update`
    if (!admins.some((row) => row.id !== userId && row.role === 'admin')) return 'last-admin'
  }
  const left = await commentsOnOthersPosts(tx, userId, 2 ** 31 - 1)
  const lateIds = [...new Set(left.map((row) => row.postId))].filter((id) => !ids.includes(id)).sort()
  await lockPosts(tx, lateIds)
  if (left.length > 0)
    await deleteComments(
      tx,
      left.map((row) => row.id),
    )
  for (const row of left) touched.add(row.postId)
  // Rows written since the batches: few, and their posts are locked already.
  for (const table of rowsOnPosts.filter((listed) => listed.ownSteps !== true))
    for (const id of await deleteRowsOnPosts(tx, table, userId, 2 ** 31 - 1)) touched.add(id)
  const [thumbnails] = await tx.$queryRaw<{ any: boolean }[]>`
    select exists (select 1 from post_thumbnails t join posts p on p.id = t.post_id where p.author_id = ${userId}::uuid) as any`
  await tx.user.delete({ where: { id: userId } })
  return { touchedPostIds: [...touched].sort(), releasedThumbnails: thumbnails?.any ?? false }
}

export function makeAccountDeletionStore(prisma: PrismaClient, options: AccountDeletionOptions = {}) {
  const batchSize = DELETION_BATCH_COMMENTS
  const rowsOnPosts = options.rowsOnPosts ?? USER_ROWS_ON_POSTS
  const statementTimeout =
    options.databaseTimeoutMs === undefined ? undefined : String(Math.floor(options.databaseTimeoutMs * 0.9))
  const transaction = <T>(work: (tx: Tx) => Promise<T>) =>
    retryingDeadlocks(() =>
      prisma.$transaction(async (tx) => {
        if (statementTimeout !== undefined)
          await tx.$queryRaw`select set_config('statement_timeout', ${statementTimeout}, true)`
        return work(tx)
      }),
    )

  /** Whether the user is still there with the password hash the request checked. */
  const stillVerified = async (tx: Tx, userId: string, verifiedHash: string) =>
    (await tx.$queryRaw<unknown[]>`select 1 from users where id = ${userId}::uuid and password_hash = ${verifiedHash}`)
      .length === 1

  /** One batch: false when there was nothing left to delete, or the account changed (the last step decides). */
  const deleteBatch = (userId: string, verifiedHash: string, find: FindComments, touched: Set<string>) =>
    transaction(async (tx) => {
      if (!(await stillVerified(tx, userId, verifiedHash))) return false
      const batch = await find(tx, userId, batchSize)
      if (batch.length === 0) return false
      const postIds = [...new Set(batch.map((row) => row.postId))].sort()
      await lockPosts(tx, postIds)
      await deleteComments(
        tx,
        batch.map((row) => row.id),
      )
      for (const id of postIds) touched.add(id)
      return batch.length === batchSize
    })

  /** One batch of a listed table's rows; false when there was nothing left, or the account changed. */
  const deleteRowsBatch = (userId: string, verifiedHash: string, rows: UserRowsOnPosts, touched: Set<string>) =>
    transaction(async (tx) => {
      if (!(await stillVerified(tx, userId, verifiedHash))) return false
      const postIds = await deleteRowsOnPosts(tx, rows, userId, batchSize)
      for (const id of postIds) touched.add(id)
      return postIds.length > 0
    })
  const rowsInBatches = rowsOnPosts.filter((rows) => rows.ownSteps !== true)

  return {
    /**
     * Deletes the user while their password hash is still `verifiedHash` (the one the request
     * checked) and, when they are an admin, another admin remains.
     *
     * Lock order in the last transaction, as writers take theirs: posts first, in id order (the
     * user's own, which the cascade deletes, and any that shows a row of theirs: comments written
     * since the batches, and every table of USER_ROWS_ON_POSTS; a post or comment write locks its
     * post first, then its insert waits on its author's row); then
     * the user's row, together with every admin's, in id order, only when the user is an admin
     * (so that two admins deleting themselves at once queue and one always remains; other
     * accounts' deletions leave admins' rows alone). Once the user's row is locked no post or
     * comment of theirs can be added: such an insert waits, then fails on the foreign key (the
     * request answers 401 SESSION_REVOKED). A deadlock that still happens (a post the user
     * commented on after the first read) is retried.
     */
    async deleteUser(userId: string, verifiedHash: string): Promise<UserDeletion> {
      // The posts, not the user's own, whose representation the deletion changes.
      const touched = new Set<string>()
      const [found] = await prisma.$queryRaw<{ role: string; others: boolean }[]>`
        select role, exists (select 1 from users where role = 'admin' and id <> ${userId}::uuid) as others
        from users where id = ${userId}::uuid`
      if (!found) return 'gone'
      // Checked before anything goes; checked again under the locks at the end.
      if (found.role === 'admin' && !found.others) return 'last-admin'
      while (await deleteBatch(userId, verifiedHash, commentsOnOthersPosts, touched));
      // The account's own posts go with it: no post here needs its cache told of a new count.
      while (await deleteBatch(userId, verifiedHash, commentsOnOwnPosts, new Set()));
      for (const rows of rowsInBatches) while (await deleteRowsBatch(userId, verifiedHash, rows, touched));
      return transaction((tx) => deleteUserRow(tx, { userId, verifiedHash, role: found.role, rowsOnPosts, touched }))
    },
  }
}

export type AccountDeletionStore = ReturnType<typeof makeAccountDeletionStore>
