// comment.moderated's data, for moderation (moderation.ts) and for an edit that sends a published
// comment back to pending (comments.ts).
import type { components } from '../../generated/api.ts'
import type { Wire } from '../../wire.ts'

type CommentStatus = components['schemas']['CommentStatus']

/**
 * comment.moderated's data: which comment, its status before and after, and when; never its text,
 * which may never have been published (a pending comment appears in no webhook with its body).
 */
export const toModeration = (
  comment: { id: string; postId: string; authorId: string; status: CommentStatus },
  previousStatus: CommentStatus,
  at: Date,
): Wire<components['schemas']['CommentModeration']> => ({
  id: comment.id,
  postId: comment.postId,
  authorId: comment.authorId,
  status: comment.status,
  previousStatus,
  moderatedAt: at.toISOString(),
})
