// The data layer for comments. Every write that changes how many comments a post has runs in one
// transaction that first locks the post's row: writers on one post are serialized, so the count
// moves by exactly the rows inserted or deleted, and a reply cannot slip in under a parent being
// deleted (the reply's foreign-key lock and the delete would otherwise deadlock).
import type { Prisma, PrismaClient } from '../generated/prisma/client.ts'
import type { PostStatus } from '../generated/prisma/enums.ts'
import { afterPosition, type Position } from '../cursor.ts'
import { sqlIn, type TransactionSql } from '../db/transaction.ts'

const commentInclude = { author: { select: { id: true, name: true } } } satisfies Prisma.CommentInclude

export type CommentRecord = Prisma.CommentGetPayload<{ include: typeof commentInclude }>
type Tx = Prisma.TransactionClient

/** Locks the post's row until the transaction ends; its status, or null when it is gone. */
async function lockPost(tx: Tx, postId: string): Promise<PostStatus | null> {
  const [post] = await tx.$queryRaw<
    { status: PostStatus }[]
  >`select status from posts where id = ${postId}::uuid for update`
  return post?.status ?? null
}

/**
 * The new comment's time, taken under the post's lock: strictly after every comment already on
 * the post. Times then follow commit order, so a reader paging by (createdAt, id) while others
 * comment never has a comment appear behind a cursor it already passed (which a time taken at
 * transaction start, or two comments in one millisecond, could do).
 */
async function nextCommentTime(tx: Tx, postId: string): Promise<Date> {
  const [row] = await tx.$queryRaw<{ at: Date }[]>`
    select greatest(clock_timestamp()::timestamptz(3), (select max(created_at) + interval '1 millisecond' from comments where post_id = ${postId}::uuid)) as at`
  return row!.at
}

/** Atomic, never read-modify-write: the database adds to the value it holds. */
const addToCount = (tx: Tx, postId: string, delta: number) =>
  tx.post.update({ where: { id: postId }, data: { commentCount: { increment: delta } }, select: { id: true } })

export function makeCommentStore(prisma: PrismaClient) {
  return {
    /** Oldest first, keyset-paged on (createdAt, id), which the (post_id, created_at, id) index serves. */
    list: (postId: string, options: { limit: number; after?: Position }) =>
      prisma.comment.findMany({
        where: { postId, ...afterPosition(options.after, 'gt') },
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
        take: options.limit + 1,
        include: commentInclude,
      }),

    /** The comment with what the rights depend on: its post's author and status. */
    find: (id: string) =>
      prisma.comment.findUnique({
        where: { id },
        include: { ...commentInclude, post: { select: { authorId: true, status: true } } },
      }),

    /** Adds the comment; `added` runs in its transaction (webhook events), which it rolls back by throwing. */
    create: (
      data: { postId: string; authorId: string; body: string; parentId: string | null },
      added: (comment: CommentRecord, sql: TransactionSql) => Promise<void> = async () => undefined,
    ) =>
      prisma.$transaction(
        async (tx): Promise<CommentRecord | 'post-missing' | 'post-not-published' | 'parent-invalid'> => {
          const status = await lockPost(tx, data.postId)
          // Checked again under the lock: the post may have been unpublished or deleted meanwhile.
          if (status === null) return 'post-missing'
          if (status !== 'published') return 'post-not-published'
          if (data.parentId !== null) {
            const parent = await tx.comment.findFirst({
              where: { id: data.parentId, postId: data.postId, parentId: null },
              select: { id: true },
            })
            if (parent === null) return 'parent-invalid'
          }
          const at = await nextCommentTime(tx, data.postId)
          const comment = await tx.comment.create({
            data: { ...data, createdAt: at, updatedAt: at },
            include: commentInclude,
          })
          await addToCount(tx, data.postId, 1)
          await added(comment, sqlIn(tx))
          return comment
        },
      ),

    update: (id: string, body: string) =>
      prisma.comment.update({ where: { id }, data: { body }, include: commentInclude }),

    /** Deletes the comment and its replies; how many rows went (0 when it was already gone). */
    remove: (id: string, postId: string) =>
      prisma.$transaction(async (tx) => {
        await lockPost(tx, postId)
        // Replies are named explicitly rather than left to ON DELETE CASCADE, so the count includes them.
        const { count } = await tx.comment.deleteMany({ where: { OR: [{ id }, { parentId: id }] } })
        if (count > 0) await addToCount(tx, postId, -count)
        return count
      }),
  }
}

export type CommentStore = ReturnType<typeof makeCommentStore>
