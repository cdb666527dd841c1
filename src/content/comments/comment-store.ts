// The data layer for comments. Every write that changes how many comments a post has runs in one
// transaction that first locks the post's row: writers on one post are serialized, so the count
// moves by exactly the rows inserted or deleted, and a reply cannot slip in under a parent being
// deleted (the reply's foreign-key lock and the delete would otherwise deadlock). The count is of
// published comments only: every write moves it by the published rows it adds or removes.
import type { Comment, Prisma, PrismaClient } from '../../generated/prisma/client.ts'
import type { CommentStatus, PostStatus } from '../../generated/prisma/enums.ts'
import { afterPosition, type Position } from '../../cursor.ts'
import { sqlIn, type TransactionSql } from '../../db/transaction.ts'
import { uuidV7 } from '../../db/uuid-v7.ts'

const commentInclude = { author: { select: { id: true, name: true } } } satisfies Prisma.CommentInclude

export type CommentRecord = Prisma.CommentGetPayload<{ include: typeof commentInclude }>
type Tx = Prisma.TransactionClient

export interface LockedPost {
  authorId: string
  status: PostStatus
  commentsOpen: boolean
}

/** The post's owner, status and whether it takes comments, as its row is locked until the transaction ends; null when it is gone. */
export async function lockPost(tx: Tx, postId: string): Promise<LockedPost | null> {
  const [post] = await tx.$queryRaw<LockedPost[]>`
    select author_id::text as "authorId", status, comments_open as "commentsOpen"
    from posts where id = ${postId}::uuid for update`
  return post ?? null
}

/**
 * Seconds the author must still wait before commenting again (0: none, and the interval starts
 * now). The author's last comment time is kept in rate_limit_counters (key `comment-interval:<id>`,
 * fleet-wide), not read from their comments, so deleting the comment does not reset the interval:
 * one upsert that starts a new interval when the last one is over, and otherwise counts the
 * refused attempt without moving the interval's end. In the comment's transaction: the counter's
 * row stays locked to its end, so two comments sent at once by one account (to one instance or
 * two) are checked one after the other and the second sees the first; a comment rolled back
 * leaves the counter as it was.
 */
async function floodWait(tx: Tx, authorId: string, minIntervalSeconds: number): Promise<number> {
  const [row] = await tx.$queryRaw<{ count: number; wait: number }[]>`
    insert into rate_limit_counters (key, count, reset_at)
    values (${`comment-interval:${authorId}`}, 1, clock_timestamp() + ${minIntervalSeconds} * interval '1 second')
    on conflict (key) do update set
      count = case when rate_limit_counters.reset_at <= clock_timestamp() then 1 else rate_limit_counters.count + 1 end,
      reset_at = case when rate_limit_counters.reset_at <= clock_timestamp() then excluded.reset_at
        else rate_limit_counters.reset_at end
    returning count, ceil(extract(epoch from reset_at - clock_timestamp()))::float8 as wait`
  return row!.count > 1 ? Math.max(1, row!.wait) : 0
}

/**
 * Whether the author has an approved comment: one published on somebody else's post, at once under
 * the policy or approved by an admin. Comments on their own posts are published at once (a post's
 * author is trusted there) and approve nothing. Stops at the first one found, walking the author's
 * comments newest first by the (author_id, created_at desc) index.
 */
async function hasApproved(tx: Tx, authorId: string): Promise<boolean> {
  const rows = await tx.$queryRaw<unknown[]>`
    select 1 from comments c join posts p on p.id = c.post_id
    where c.author_id = ${authorId}::uuid and c.status = 'published' and p.author_id <> c.author_id
    limit 1`
  return rows.length > 0
}

/** The row the insert below returns, with its author's name. */
type InsertedComment = Comment & { authorName: string }

export interface NewComment {
  postId: string
  authorId: string
  body: string
  /** The duplicate check's fingerprint (comment-policy.ts). */
  bodyHash: string
  parentId: string | null
}

/**
 * Inserts the comment and adds it to its post's count in one statement, so a comment costs one
 * round trip rather than four (time, insert, read-back, count). Its time is taken here, under the
 * post's lock that the transaction already holds: strictly after every comment already on the
 * post. Times then follow commit order, so a reader paging by (createdAt, id) while others comment
 * never has a comment appear behind a cursor it already passed (which a time taken at transaction
 * start, or two comments in one millisecond, could do). A published comment adds one to the count
 * and moves the post's updatedAt, as Prisma's `@updatedAt` moves it on any update of the row; a
 * held one leaves the post's row alone (the update matches no row): it changes nothing others can
 * see, so nothing they can read may move, or a reader polling posts would learn when it came.
 */
async function insertCounted(tx: Tx, data: NewComment, status: CommentStatus): Promise<CommentRecord> {
  const published = status === 'published'
  const [row] = await tx.$queryRaw<InsertedComment[]>`
    with next as (
      select greatest(clock_timestamp()::timestamptz(3),
        (select max(created_at) + interval '1 millisecond' from comments where post_id = ${data.postId}::uuid)) as at
    ), inserted as (
      insert into comments (id, post_id, author_id, parent_id, body, status, announced, body_hash, created_at, updated_at)
      select ${uuidV7()}::uuid, ${data.postId}::uuid, ${data.authorId}::uuid, ${data.parentId}::uuid, ${data.body},
        ${status}::"CommentStatus", ${published}, ${data.bodyHash}, at, at
      from next
      returning id, post_id, author_id, parent_id, body, status, announced, body_hash, created_at, updated_at
    ), counted as (
      update posts set comment_count = comment_count + 1, updated_at = clock_timestamp()::timestamptz(3)
      where id = ${data.postId}::uuid and ${published}
    )
    select i.id::text as id, i.post_id::text as "postId", i.author_id::text as "authorId",
      i.parent_id::text as "parentId", i.body, i.status::text as status, i.announced, i.body_hash as "bodyHash",
      i.created_at as "createdAt", i.updated_at as "updatedAt", u.name as "authorName"
    from inserted i join users u on u.id = i.author_id`
  const { authorName, ...comment } = row!
  return { ...comment, author: { id: comment.authorId, name: authorName } }
}

/** Atomic, never read-modify-write: the database adds to the value it holds. */
export const addToCount = (tx: Tx, postId: string, delta: number) =>
  tx.post.update({ where: { id: postId }, data: { commentCount: { increment: delta } }, select: { id: true } })

/** What an edit is answered with: the comment, its status before; 'duplicate'; null when it went meanwhile. */
type Edited = { comment: CommentRecord; from: CommentStatus } | 'duplicate' | null
type EditArgs = [
  id: string,
  postId: string,
  text: { body: string; bodyHash: string },
  judge: (from: CommentStatus) => Promise<CommentStatus>,
  held: (comment: CommentRecord, sql: TransactionSql) => Promise<void>,
]

/**
 * Rewords the comment under its post's lock, then its own: 'duplicate' when another comment of its
 * author's on the post, answering the same comment, has the same fingerprint; null when the comment
 * went meanwhile. `judge` gives its status from the status as locked (an edit may hold a published
 * comment again); the count moves with it, and `held` runs in the transaction when the status
 * changed (webhook events).
 */
function editComment(prisma: PrismaClient, ...[id, postId, text, judge, held]: EditArgs): Promise<Edited> {
  return prisma.$transaction(async (tx): Promise<Edited> => {
    if ((await lockPost(tx, postId)) === null) return null
    const [locked] = await tx.$queryRaw<{ status: CommentStatus; authorId: string; parentId: string | null }[]>`
      select status::text as status, author_id::text as "authorId", parent_id::text as "parentId"
      from comments where id = ${id}::uuid for update`
    if (locked === undefined) return null
    const twin = await tx.comment.findFirst({
      where: { postId, authorId: locked.authorId, bodyHash: text.bodyHash, parentId: locked.parentId, id: { not: id } },
      select: { id: true },
    })
    if (twin !== null) return 'duplicate'
    const status = await judge(locked.status)
    const comment = await tx.comment.update({ where: { id }, data: { ...text, status }, include: commentInclude })
    const delta = (status === 'published' ? 1 : 0) - (locked.status === 'published' ? 1 : 0)
    if (delta !== 0) await addToCount(tx, postId, delta)
    if (status !== locked.status) await held(comment, sqlIn(tx))
    return { comment, from: locked.status }
  })
}

export function makeCommentStore(prisma: PrismaClient) {
  return {
    /**
     * Oldest first, keyset-paged on (createdAt, id), which the (post_id, created_at, id) index
     * serves: the published comments, and the viewer's own pending ones.
     */
    list: (postId: string, options: { limit: number; after?: Position; viewerId: string | null }) =>
      prisma.comment.findMany({
        where: {
          postId,
          ...afterPosition(options.after, 'gt'),
          AND: [
            {
              OR: [
                { status: 'published' },
                ...(options.viewerId === null ? [] : [{ status: 'pending' as const, authorId: options.viewerId }]),
              ],
            },
          ],
        },
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
        take: options.limit + 1,
        include: commentInclude,
      }),

    /** The comment with what the rights depend on: its post's author, status and whether it takes comments. */
    find: (id: string) =>
      prisma.comment.findUnique({
        where: { id },
        include: { ...commentInclude, post: { select: { authorId: true, status: true, commentsOpen: true } } },
      }),

    /**
     * Adds the comment. Every check runs under the post's lock, so nothing can unpublish, close or
     * delete the post between the check and the insert, in the order the spec gives: 'post-missing'
     * when it does not exist for the writer (`rules.visible`), 'post-not-published', 'comments-closed',
     * 'parent-invalid' (a parent that is not a published top-level comment of the post),
     * 'duplicate', then the flood wait (`{ retryAfter }`, skipped when `rules.minIntervalSeconds` is
     * 0). `rules.status` decides published or pending; `added` runs in the transaction (webhook
     * events), which it rolls back by throwing.
     */
    create: (
      data: NewComment,
      rules: {
        visible: (post: LockedPost) => boolean
        minIntervalSeconds: number
        status: (post: LockedPost, hasPublished: () => Promise<boolean>) => Promise<CommentStatus>
      },
      added: (comment: CommentRecord, sql: TransactionSql) => Promise<void> = async () => undefined,
    ) =>
      prisma.$transaction(async (tx): Promise<CommentRecord | CreateRefusal | { retryAfter: number }> => {
        const post = await lockPost(tx, data.postId)
        if (post === null || !rules.visible(post)) return 'post-missing'
        if (post.status !== 'published') return 'post-not-published'
        if (!post.commentsOpen) return 'comments-closed'
        if (data.parentId !== null) {
          const parent = await tx.comment.findFirst({
            where: { id: data.parentId, postId: data.postId, parentId: null, status: 'published' },
            select: { id: true },
          })
          if (parent === null) return 'parent-invalid'
        }
        // By the (post_id, author_id, body_hash) index: bounded however much the author wrote. The
        // same parent too, as WordPress compares: "Thanks!" to two readers is two answers, not spam.
        const twin = await tx.comment.findFirst({
          where: { postId: data.postId, authorId: data.authorId, bodyHash: data.bodyHash, parentId: data.parentId },
          select: { id: true },
        })
        if (twin !== null) return 'duplicate'
        if (rules.minIntervalSeconds > 0) {
          const retryAfter = await floodWait(tx, data.authorId, rules.minIntervalSeconds)
          if (retryAfter > 0) return { retryAfter }
        }
        const hasPublished = () => hasApproved(tx, data.authorId)
        const comment = await insertCounted(tx, data, await rules.status(post, hasPublished))
        await added(comment, sqlIn(tx))
        return comment
      }),

    /** Rewords the comment (see `editComment`). */
    edit: (...args: EditArgs) => editComment(prisma, ...args),

    /**
     * Deletes the comment and its replies; how many rows went (0 when it was already gone), and how
     * many of them were published. The post's count drops by the published ones.
     */
    remove: (id: string, postId: string) =>
      prisma.$transaction(async (tx) => {
        await lockPost(tx, postId)
        // Replies are named explicitly rather than left to ON DELETE CASCADE, so the count includes them.
        const [gone] = await tx.$queryRaw<{ rows: number; published: number }[]>`
          with gone as (
            delete from comments where id = ${id}::uuid or parent_id = ${id}::uuid returning status)
          select count(*)::int as rows, (count(*) filter (where status = 'published'))::int as published from gone`
        if (gone!.published > 0) await addToCount(tx, postId, -gone!.published)
        return gone!
      }),
  }
}

export type CommentStore = ReturnType<typeof makeCommentStore>

/** Why a comment was not added (see `create`). */
export type CreateRefusal = 'post-missing' | 'post-not-published' | 'comments-closed' | 'parent-invalid' | 'duplicate'
