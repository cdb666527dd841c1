// Comments on published posts, one level of replies, the post's comment count kept exact.
import type { components } from '../../generated/api.ts'
import type { Wire } from '../../wire.ts'
import { isMissingRecord } from '../../db/errors.ts'
import { ApiError, notFound, refuseBlank } from '../../errors/api-error.ts'
import { DEFAULT_PAGE_LIMIT, decodeCursor, pageOf } from '../../cursor.ts'
import type { Principal } from '../../auth/principal.ts'
import type { CommentRecord, CommentStore } from './comment-store.ts'
import type { PostChanges } from '../posts/post-changes.ts'
import type { PostService } from '../posts/posts.ts'
import { canDeleteComment, canEditComment, canSee, canSeeComment } from '../posts/visibility.ts'
import type { WebhookEvents } from '../../webhooks/webhook-events.ts'

type Comment = components['schemas']['PostComment']

export const toComment = (comment: CommentRecord): Wire<Comment> => ({
  id: comment.id,
  postId: comment.postId,
  parentId: comment.parentId,
  author: comment.author,
  body: comment.body,
  createdAt: comment.createdAt.toISOString(),
  updatedAt: comment.updatedAt.toISOString(),
})

const commentNotFound = () => notFound('COMMENT_NOT_FOUND', 'Comment')
const postNotFound = () => notFound('POST_NOT_FOUND', 'Post')
const notPublished = () => new ApiError(409, 'POST_NOT_PUBLISHED', 'Comments can be added to published posts only.')
const forbidden = (message: string) => new ApiError(403, 'FORBIDDEN', message)
const parentInvalid = () =>
  new ApiError(422, 'PARENT_COMMENT_INVALID', 'Replies must answer a top-level comment of the same post.', [
    { path: '/body/parentId', message: 'is not a top-level comment of this post' },
  ])

export interface CommentServiceOptions {
  store: CommentStore
  /** Whether the post exists for the caller, and may be commented on. */
  posts: PostService
  /** A comment added or removed changes its post's commentCount. */
  changes: PostChanges
  /** comment.created goes out in the transaction that adds the comment. */
  events: WebhookEvents
  /** LIST_PAGE_MAX_BYTES: the most bytes of comments one page carries. */
  pageMaxBytes: number
}

export function makeCommentService({ store, posts, changes, events, pageMaxBytes }: CommentServiceOptions) {
  /** A comment exists for the caller only if its post does (drafts: author and admins). */
  async function findVisible(principal: Principal, id: string) {
    const comment = await store.find(id)
    if (!comment || !canSeeComment(principal, comment)) throw commentNotFound()
    return comment
  }

  return {
    /** Open to whoever can see the post; on an unpublished post that is its author and admins. */
    async list(principal: Principal | null, postId: string, query: { limit?: number; cursor?: string }) {
      await posts.findVisible(principal, postId)
      const limit = query.limit ?? DEFAULT_PAGE_LIMIT
      const rows = await store.list(postId, { limit, after: decodeCursor(query.cursor) })
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
      const created = await store.create(
        {
          postId,
          authorId: principal.userId,
          body: input.body,
          parentId: input.parentId ?? null,
        },
        // 404 for a post the caller cannot see comes before 409: it must not reveal that a draft exists.
        (post) => canSee(principal, post),
        (comment, sql) => events.emit(sql, 'comment.created', toComment(comment)),
      )
      if (created === 'post-missing') throw postNotFound()
      if (created === 'post-not-published') throw notPublished()
      if (created === 'parent-invalid') throw parentInvalid()
      await changes.changed({ postId })
      return toComment(created)
    },

    async update(principal: Principal, id: string, input: { body: string }): Promise<Comment> {
      refuseBlank(input.body, '/body/body')
      const comment = await findVisible(principal, id)
      if (!canEditComment(principal, comment)) throw forbidden('Only the author of a comment may edit it.')
      try {
        return toComment(await store.update(id, input.body))
      } catch (error) {
        if (isMissingRecord(error)) throw commentNotFound()
        throw error
      }
    },

    /** A top-level comment takes its replies with it. */
    async remove(principal: Principal, id: string): Promise<void> {
      const comment = await findVisible(principal, id)
      if (!canDeleteComment(principal, comment))
        throw forbidden("Only the comment's author, the post's author and admins may delete it.")
      // Nothing removed: another request deleted it (or its parent) first.
      if ((await store.remove(id, comment.postId)) === 0) throw commentNotFound()
      await changes.changed({ postId: comment.postId })
    },
  }
}

export type CommentService = ReturnType<typeof makeCommentService>
