// Moderation: the queue admins page through, and status changes. Admins may set any status; a
// post's author may hide a published comment on their post and show it again, nothing more
// (approving and spam are the site's call, not one author's), and only while no admin has decided
// on it: what the policy published, or what they moderated themselves. An admin's decision stands
// against them. Each change records who made it (comments.moderated_by, moderated_at). Each change moves the post's count,
// tells the caches, and sends comment.moderated (and comment.created the first time it is published)
// in its transaction.
import type { components } from '../../generated/api.ts'
import { toModeration } from './moderation-view.ts'
import { DEFAULT_PAGE_LIMIT, decodeCursor, pageOf } from '../../cursor.ts'
import type { Principal } from '../../auth/principal.ts'
import type { CommentStore } from './comment-store.ts'
import type { CommentModerationStore, ModerationState } from './comment-moderation-store.ts'
import type { PostChanges } from '../posts/post-changes.ts'
import type { WebhookEvents } from '../../webhooks/webhook-events.ts'
import { commentNotFound, existsFor, forbidden, toComment } from './comments.ts'

/** The spec's statuses, the database enum's values: services stay off Prisma's types. */
type CommentStatus = components['schemas']['CommentStatus']

type Comment = components['schemas']['PostComment']

/** What a post's author may do on their post: take a comment down and put it back. */
const AUTHOR_MAY = new Set<CommentStatus>(['published', 'hidden'])

export interface CommentModerationOptions {
  store: CommentModerationStore
  comments: CommentStore
  changes: PostChanges
  events: WebhookEvents
  pageMaxBytes: number
}

export function makeCommentModeration({ store, comments, changes, events, pageMaxBytes }: CommentModerationOptions) {
  return {
    /** Admins only (the spec's security). */
    async list(query: { status?: CommentStatus; postId?: string; authorId?: string; limit?: number; cursor?: string }) {
      const limit = query.limit ?? DEFAULT_PAGE_LIMIT
      const rows = await store.list({
        status: query.status ?? 'pending',
        postId: query.postId,
        authorId: query.authorId,
        limit,
        after: decodeCursor(query.cursor),
      })
      const position = (comment: (typeof rows)[number]) => ({ at: comment.createdAt, id: comment.id })
      const { items, nextCursor } = pageOf(rows, limit, position, toComment, pageMaxBytes)
      return { comments: items, page: { limit, nextCursor } }
    },

    async moderate(principal: Principal, id: string, to: CommentStatus): Promise<Comment> {
      const comment = await comments.find(id)
      if (!comment || !existsFor(principal, comment)) throw commentNotFound()
      const admin = principal.role === 'admin'
      const postAuthor = principal.userId === comment.post.authorId
      if (!admin && !postAuthor) throw forbidden("Only admins and the post's author may moderate its comments.")
      // Checked again on the state as locked: another moderator may have changed it meanwhile.
      const allowed = (locked: ModerationState) =>
        admin ||
        (AUTHOR_MAY.has(locked.status) &&
          AUTHOR_MAY.has(to) &&
          (locked.moderatedAt === null || locked.moderatedById === principal.userId))
      if (!allowed(comment)) throw authorMayNot()
      const change = await store.setStatus(id, comment.postId, to, principal.userId, allowed, async (change, sql) => {
        if (change.firstPublished) await events.emit(sql, 'comment.created', toComment(change.comment))
        const at = change.comment.moderatedAt ?? new Date()
        await events.emit(sql, 'comment.moderated', toModeration(change.comment, change.from, at))
      })
      if (change === null) throw commentNotFound()
      if (change === 'forbidden') throw authorMayNot()
      // Only entering or leaving `published` changes what others read (count, lists, feeds):
      // between pending, spam and hidden nothing moves, not even a cache event others could notice.
      if ((change.from === 'published') !== (to === 'published')) await changes.changed({ postId: comment.postId })
      return toComment(change.comment)
    },
  }
}

const authorMayNot = () =>
  forbidden(
    "A post's author may hide published comments on their post and show again those they hid, unless an admin has decided on the comment; only admins may do more.",
  )

export type CommentModeration = ReturnType<typeof makeCommentModeration>
