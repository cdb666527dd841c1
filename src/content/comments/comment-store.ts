// The data layer for comments. Every write that changes how many comments a post has runs in one
// transaction that first locks the post's row: writers on one post are serialized, so the count
// moves by exactly the rows inserted or deleted, and a reply cannot slip in under a parent being
// deleted (the reply's foreign-key lock and the delete would otherwise deadlock).
import type { Comment, Prisma, PrismaClient } from '../../generated/prisma/client.ts'
import type { PostStatus } from '../../generated/prisma/enums.ts'
import { afterPosition, type Position } from '../../cursor.ts'
import { sqlIn, type TransactionSql } from '../../db/transaction.ts'
import { uuidV7 } from '../../db/uuid-v7.ts'

const commentInclude = { author: { select: { id: true, name: true } } } satisfies Prisma.CommentInclude

export type CommentRecord = Prisma.CommentGetPayload<{ include: typeof commentInclude }>
type Tx = Prisma.TransactionClient

/** The post's owner and status, as its row is locked until the transaction ends; null when it is gone. */
async function lockPost(tx: Tx, postId: string): Promise<{ authorId: string; status: PostStatus } | null> {
  const [post] = await tx.$queryRaw<{ authorId: string; status: PostStatus }[]>`
    select author_id::text as "authorId", status from posts where id = ${postId}::uuid for update`
  return post ?? null
}

/** The row the insert below returns, with its author's name. */
type InsertedComment = Comment & { authorName: string }

/**
 * Inserts the comment and adds it to its post's count in one statement, so a comment costs one
 * round trip rather than four (time, insert, read-back, count). Its time is taken here, under the
 * post's lock that the transaction already holds: strictly after every comment already on the
 * post. Times then follow commit order, so a reader paging by (createdAt, id) while others comment
 * never has a comment appear behind a cursor it already passed (which a time taken at transaction
 * start, or two comments in one millisecond, could do). The post's updatedAt moves as Prisma's
 * `@updatedAt` moves it on any update of the row.
 */
async function insertCounted(
  tx: Tx,
  data: { postId: string; authorId: string; body: string; parentId: string | null },
): Promise<CommentRecord> {
  const [row] = await tx.$queryRaw<InsertedComment[]>`
    with next as (
      select greatest(clock_timestamp()::timestamptz(3),
        (select max(created_at) + interval '1 millisecond' from comments where post_id = ${data.postId}::uuid)) as at
    ), inserted as (
      insert into comments (id, post_id, author_id, parent_id, body, created_at, updated_at)
      select ${uuidV7()}::uuid, ${data.postId}::uuid, ${data.authorId}::uuid, ${data.parentId}::uuid, ${data.body}, at, at
      from next
      returning id, post_id, author_id, parent_id, body, created_at, updated_at
    ), counted as (
      update posts set comment_count = comment_count + 1, updated_at = clock_timestamp()::timestamptz(3)
      where id = ${data.postId}::uuid
    )
    select i.id::text as id, i.post_id::text as "postId", i.author_id::text as "authorId",
      i.parent_id::text as "parentId", i.body, i.created_at as "createdAt", i.updated_at as "updatedAt",
      u.name as "authorName"
    from inserted i join users u on u.id = i.author_id`
  const { authorName, ...comment } = row!
  return { ...comment, author: { id: comment.authorId, name: authorName } }
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

    /**
     * Adds the comment. The post is checked only under its lock, so nothing can unpublish or delete
     * it between the check and the insert: 'post-missing' when it does not exist for the writer
     * (`visible`), then 'post-not-published'. `added` runs in the transaction (webhook events), which
     * it rolls back by throwing.
     */
    create: (
      data: { postId: string; authorId: string; body: string; parentId: string | null },
      visible: (post: { authorId: string; status: PostStatus }) => boolean,
      added: (comment: CommentRecord, sql: TransactionSql) => Promise<void> = async () => undefined,
    ) =>
      prisma.$transaction(
        async (tx): Promise<CommentRecord | 'post-missing' | 'post-not-published' | 'parent-invalid'> => {
          const post = await lockPost(tx, data.postId)
          if (post === null || !visible(post)) return 'post-missing'
          if (post.status !== 'published') return 'post-not-published'
          if (data.parentId !== null) {
            const parent = await tx.comment.findFirst({
              where: { id: data.parentId, postId: data.postId, parentId: null },
              select: { id: true },
            })
            if (parent === null) return 'parent-invalid'
          }
          const comment = await insertCounted(tx, data)
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
