// Who may see and change posts and comments: the one place for the rules every content operation
// applies, so that a new role is a change to this file. Drafts and scheduled posts exist only for
// their author and admins; to anyone else they are 404, never 403, which would reveal them.
import { ApiError, notFound } from '../../errors/api-error.ts'
import type { Principal } from '../../auth/principal.ts'

type Status = 'draft' | 'scheduled' | 'published'

interface Owned {
  authorId: string
  status: Status
}

export const canSee = (principal: Principal | null, post: Owned) =>
  post.status === 'published' || principal?.role === 'admin' || principal?.userId === post.authorId

export const canEdit = (principal: Principal, post: Pick<Owned, 'authorId'>) =>
  principal.role === 'admin' || principal.userId === post.authorId

/**
 * A post's revisions are its author's and admins' only, whatever its status: they hold what was
 * overwritten (a defaced post's text, an author's earlier draft), which nobody else ever saw.
 */
export const canSeeRevisions = (principal: Principal | null, post: Pick<Owned, 'authorId'>) =>
  principal !== null && canEdit(principal, post)

/**
 * The post `principal` is about to change, or the refusal the spec gives, in its order: 404 when
 * it does not exist for them, then 403 when they may see it but not change it.
 */
export function editableBy<P extends Owned>(principal: Principal, post: P | null): P {
  if (!post || !canSee(principal, post)) throw notFound('POST_NOT_FOUND', 'Post')
  if (!canEdit(principal, post))
    throw new ApiError(403, 'FORBIDDEN', 'Only the author and admins may change this post.')
  return post
}

/**
 * Locks the post for a write by `principal` (until the write's transaction ends), then refuses as
 * editableBy does, on the post as locked: no write can change its author or status in between.
 */
export const lockForEdit = async (
  write: { lock(id: string): Promise<Owned | null> },
  principal: Principal,
  id: string,
) => editableBy(principal, await write.lock(id))

/**
 * The author filter a list of `status` posts applies for `principal`, given the one asked for
 * (`author`); null when the list is empty for them. Published posts: anyone's. Unpublished ones:
 * any author's to admins, their own to other users, none to anonymous callers.
 */
export function listScope(
  principal: Principal | null,
  status: Status,
  author: string | undefined,
): { authorId: string | undefined } | null {
  if (status === 'published' || principal?.role === 'admin') return { authorId: author }
  if (!principal || (author !== undefined && author !== principal.userId)) return null
  return { authorId: principal.userId }
}

/** A comment exists for the caller only if its post does. */
export const canSeeComment = (principal: Principal | null, comment: { post: Owned }) => canSee(principal, comment.post)

/** Its author only: admins and the post's author may delete a comment, not put words in its mouth. */
export const canEditComment = (principal: Principal, comment: { authorId: string }) =>
  comment.authorId === principal.userId

/** Its author, the post's author, or an admin. */
export const canDeleteComment = (principal: Principal, comment: { authorId: string; post: Pick<Owned, 'authorId'> }) =>
  canEditComment(principal, comment) || canEdit(principal, comment.post)
