// The data layer of moderation: the queue admins page through, and status changes. A change runs
// in one transaction that locks the post first (as every comment write does, comment-store.ts),
// then the comment: the count moves by exactly one when the comment enters or leaves `published`,
// and two moderators changing one comment at once are applied one after the other.
import type { PrismaClient } from '../../generated/prisma/client.ts'
import type { CommentStatus } from '../../generated/prisma/enums.ts'
import { afterPosition, type Position } from '../../cursor.ts'
import { sqlIn, type TransactionSql } from '../../db/transaction.ts'
import { addToCount, lockPost, type CommentRecord } from './comment-store.ts'

const commentInclude = { author: { select: { id: true, name: true } } } as const

/** What the rights of a change depend on, as the comment's row is locked. */
export interface ModerationState {
  status: CommentStatus
  /** Who last changed its status; null when never, or when that account is gone. */
  moderatedById: string | null
  /** When its status was last changed by a moderator; null when never. */
  moderatedAt: Date | null
}

export interface StatusChange {
  comment: CommentRecord
  from: CommentStatus
  /** The comment is published for the first time in its life: comment.created goes out now. */
  firstPublished: boolean
}

export function makeCommentModerationStore(prisma: PrismaClient) {
  return {
    /**
     * One status's comments, by the (status, created_at, id) index: pending oldest first (the
     * longest waiting first), every other status newest first.
     */
    list: (options: { status: CommentStatus; postId?: string; authorId?: string; limit: number; after?: Position }) => {
      const direction = options.status === 'pending' ? 'asc' : 'desc'
      return prisma.comment.findMany({
        where: {
          status: options.status,
          ...(options.postId === undefined ? {} : { postId: options.postId }),
          ...(options.authorId === undefined ? {} : { authorId: options.authorId }),
          ...afterPosition(options.after, direction === 'asc' ? 'gt' : 'lt'),
        },
        orderBy: [{ createdAt: direction }, { id: direction }],
        take: options.limit + 1,
        include: commentInclude,
      })
    },

    /**
     * Sets the comment's status, recording `moderatorId` as who last moderated it: null when the
     * comment (or its post) went meanwhile, 'forbidden' when `allowed` refuses the change from the
     * state as locked. A change to the status it has changes nothing, records nothing and calls
     * nothing. `changed` runs in the transaction (webhook events).
     */
    setStatus: (
      id: string,
      postId: string,
      to: CommentStatus,
      moderatorId: string,
      allowed: (locked: ModerationState) => boolean,
      changed: (change: StatusChange, sql: TransactionSql) => Promise<void>,
    ) =>
      prisma.$transaction(async (tx): Promise<StatusChange | 'forbidden' | null> => {
        if ((await lockPost(tx, postId)) === null) return null
        const [locked] = await tx.$queryRaw<(ModerationState & { announced: boolean })[]>`
          select status::text as status, announced, moderated_by::text as "moderatedById", moderated_at as "moderatedAt"
          from comments where id = ${id}::uuid for update`
        if (locked === undefined) return null
        if (!allowed(locked)) return 'forbidden'
        const from = locked.status
        if (from === to) {
          const comment = await tx.comment.findUniqueOrThrow({ where: { id }, include: commentInclude })
          return { comment, from, firstPublished: false }
        }
        const firstPublished = to === 'published' && !locked.announced
        // Raw, not tx.comment.update: a moderation decision is not an edit, so updatedAt stays.
        await tx.$executeRaw`
          update comments set status = ${to}::"CommentStatus", announced = announced or ${firstPublished},
            moderated_by = ${moderatorId}::uuid, moderated_at = clock_timestamp()::timestamptz(3)
          where id = ${id}::uuid`
        const comment = await tx.comment.findUniqueOrThrow({ where: { id }, include: commentInclude })
        const delta = (to === 'published' ? 1 : 0) - (from === 'published' ? 1 : 0)
        if (delta !== 0) await addToCount(tx, postId, delta)
        const change = { comment, from, firstPublished }
        await changed(change, sqlIn(tx))
        return change
      }),
  }
}

export type CommentModerationStore = ReturnType<typeof makeCommentModerationStore>
