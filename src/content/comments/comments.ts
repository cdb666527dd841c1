// Comments on published posts, one level of replies, the post's count of published comments kept
// exact; who must wait for approval (comment-policy.ts), closed posts and flood control.
import type { components } from '../../generated/api.ts'
import type { Wire } from '../../wire.ts'
import { ApiError, notFound, refuseBlank } from '../../errors/api-error.ts'
import { DEFAULT_PAGE_LIMIT, decodeCursor, pageOf } from '../../cursor.ts'
import type { Principal } from '../../auth/principal.ts'
import type { CommentRecord, CommentStore } from './comment-store.ts'
import type { PostChanges } from '../posts/post-changes.ts'
import type { PostService } from '../posts/posts.ts'
import { canDeleteComment, canEditComment, canSee, canSeeComment } from '../posts/visibility.ts'
import type { WebhookEvents } from '../../webhooks/webhook-events.ts'
import { bodyHash, countLinks, initialStatus, type CommentModeration } from './comment-policy.ts'
import { toModeration } from './moderation-view.ts'

type Comment = components['schemas']['PostComment']

export const toComment = (comment: CommentRecord): Wire<Comment> => ({
  id: comment.id,
  postId: comment.postId,
  parentId: comment.parentId,
  author: comment.author,
  body: comment.body,
  status: comment.status,
  createdAt: comment.createdAt.toISOString(),
  updatedAt: comment.updatedAt.toISOString(),
})

export const commentNotFound = () => notFound('COMMENT_NOT_FOUND', 'Comment')
const postNotFound = () => notFound('POST_NOT_FOUND', 'Post')
const notPublished = () => new ApiError(409, 'POST_NOT_PUBLISHED', 'Comments can be added to published posts only.')
export const forbidden = (message: string) => new ApiError(403, 'FORBIDDEN', message)
const commentsClosed = () => new ApiError(409, 'COMMENTS_CLOSED', 'Comments on this post are closed.')
const duplicate = () =>
  new ApiError(409, 'DUPLICATE_COMMENT', 'You have already written this comment on this post.', [
    { path: '/body/body', message: 'is the same as an earlier comment of yours on this post' },
  ])
const tooSoon = (seconds: number) =>
  new ApiError(429, 'RATE_LIMITED', `You commented a moment ago; try again in ${seconds} s.`, [], {
    'retry-after': String(seconds),
  })
const parentInvalid = () =>
  new ApiError(422, 'PARENT_COMMENT_INVALID', 'Replies must answer a top-level comment of the same post.', [
    { path: '/body/parentId', message: 'is not a top-level comment of this post' },
  ])

export interface CommentPolicy {
  /** COMMENT_MODERATION */
  moderation: CommentModeration
  /** COMMENT_MAX_LINKS */
  maxLinks: number
  /** COMMENT_MIN_INTERVAL_SECONDS: 0 turns flood control off. */
  minIntervalSeconds: number
}

export interface CommentServiceOptions {
  store: CommentStore
  /** Whether the post exists for the caller, and may be commented on. */
  posts: PostService
  /** A comment added or removed changes its post's commentCount. */
  changes: PostChanges
  /** comment.created goes out in the transaction that adds a published comment. */
  events: WebhookEvents
  /** LIST_PAGE_MAX_BYTES: the most bytes of comments one page carries. */
  pageMaxBytes: number
  policy: CommentPolicy
}

/**
 * A comment exists for the caller only if its post does (drafts: author and admins), and, unless
 * it is published, only for its author, the post's author and admins: to anyone else it is 404.
 */
export const existsFor = (
  principal: Principal,
  comment: {
    status: string
    authorId: string
    post: { authorId: string; status: 'draft' | 'scheduled' | 'published' }
  },
) =>
  canSeeComment(principal, comment) &&
  (comment.status === 'published' ||
    principal.role === 'admin' ||
    principal.userId === comment.authorId ||
    principal.userId === comment.post.authorId)

export function makeCommentService({ store, posts, changes, events, pageMaxBytes, policy }: CommentServiceOptions) {
  async function findVisible(principal: Principal, id: string) {
    const comment = await store.find(id)
    if (!comment || !existsFor(principal, comment)) throw commentNotFound()
    return comment
  }

  return {
    /**
     * Open to whoever can see the post; on an unpublished post that is its author and admins.
     * Published comments, and the caller's own pending ones (marked by their status).
     */
    async list(principal: Principal | null, postId: string, query: { limit?: number; cursor?: string }) {
      await posts.findVisible(principal, postId)
      const limit = query.limit ?? DEFAULT_PAGE_LIMIT
      const after = decodeCursor(query.cursor)
      const rows = await store.list(postId, { limit, after, viewerId: principal?.userId ?? null })
      const position = (comment: (typeof rows)[number]) => ({ at: comment.createdAt, id: comment.id })
      const { items, nextCursor } = pageOf(rows, limit, position, toComment, pageMaxBytes)
      return { comments: items, page: { limit, nextCursor } }
    },

    async create(
      principal: Principal,
      postId: string,
      input: { body: string; parentId?: string | null },
    ): Promise<Comment> {
      refuseBlank(input.body, '/body/body')
      const admin = principal.role === 'admin'
      const tooManyLinks = countLinks(input.body) > policy.maxLinks
      const created = await store.create(
        {
          postId,
          authorId: principal.userId,
          body: input.body,
          bodyHash: bodyHash(input.body),
          parentId: input.parentId ?? null,
        },
        {
          // 404 for a post the caller cannot see comes before 409: it must not reveal that a draft exists.
          visible: (post) => canSee(principal, post),
          // Admins moderate; holding them back would slow the people who clear the queue.
          minIntervalSeconds: admin ? 0 : policy.minIntervalSeconds,
          // A post's author answering readers on their own post is trusted there, as admins are everywhere.
          status: (post, hasPublished) =>
            initialStatus(policy.moderation, tooManyLinks, {
              trusted: admin || post.authorId === principal.userId,
              hasPublished,
            }),
        },
        // Only a published comment is announced; a held one is, once, when it is approved.
        async (comment, sql) => {
          if (comment.status === 'published') await events.emit(sql, 'comment.created', toComment(comment))
        },
      )
      if (created === 'post-missing') throw postNotFound()
      if (created === 'post-not-published') throw notPublished()
      if (created === 'comments-closed') throw commentsClosed()
      if (created === 'parent-invalid') throw parentInvalid()
      if (created === 'duplicate') throw duplicate()
      if ('retryAfter' in created) throw tooSoon(created.retryAfter)
      // A held comment changes no count and no list others see: nothing cached to forget.
      if (created.status === 'published') await changes.changed({ postId })
      return toComment(created)
    },

    /**
     * Its author only, and not on a closed post: closing freezes the discussion. The new text meets
     * the rules a new comment's does: the same text twice on the post is 409, and a published
     * comment is judged again as a new one by its author would be (too many links, or
     * COMMENT_MODERATION=all: back to pending, out of the count, comment.moderated sent), so that an
     * approved author cannot edit links into a published comment. A comment not published stays as it is.
     */
    async update(principal: Principal, id: string, input: { body: string }): Promise<Comment> {
      refuseBlank(input.body, '/body/body')
      const comment = await findVisible(principal, id)
      if (!canEditComment(principal, comment)) throw forbidden('Only the author of a comment may edit it.')
      if (!comment.post.commentsOpen) throw commentsClosed()
      const trusted = principal.role === 'admin' || comment.post.authorId === principal.userId
      const tooManyLinks = countLinks(input.body) > policy.maxLinks
      const edited = await store.edit(
        id,
        comment.postId,
        { body: input.body, bodyHash: bodyHash(input.body) },
        // The author has a published comment: this one. Only what the text decides can hold it.
        async (from) =>
          from === 'published'
            ? initialStatus(policy.moderation, tooManyLinks, { trusted, hasPublished: async () => true })
            : from,
        // Sent back to pending: the event says so without the text (moderation.ts, toModeration).
        (held, sql) => events.emit(sql, 'comment.moderated', toModeration(held, 'published', new Date())),
      )
      if (edited === null) throw commentNotFound()
      if (edited === 'duplicate') throw duplicate()
      if (edited.from !== edited.comment.status) await changes.changed({ postId: comment.postId })
      return toComment(edited.comment)
    },

    /** A top-level comment takes its replies with it; closed posts too (authors may take back their words). */
    async remove(principal: Principal, id: string): Promise<void> {
      const comment = await findVisible(principal, id)
      if (!canDeleteComment(principal, comment))
        throw forbidden("Only the comment's author, the post's author and admins may delete it.")
      const gone = await store.remove(id, comment.postId)
      // Nothing removed: another request deleted it (or its parent) first.
      if (gone.rows === 0) throw commentNotFound()
      // Only comments others saw change what they read: a held one goes without a cache event.
      if (gone.published > 0) await changes.changed({ postId: comment.postId })
    },
  }
}

export type CommentService = ReturnType<typeof makeCommentService>
