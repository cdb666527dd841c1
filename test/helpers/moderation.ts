// Requests the comment-moderation tests send (test/content/comments/moderation*.test.ts,
// quiet-moderation.test.ts): a comment, a status change, and what others see of a post's comments.
import type { FastifyInstance } from 'fastify'
import type { Account } from './accounts.ts'

/** createComment by `who`, as a reply to `parentId` when given: the answer, whatever its status. */
export const postComment = (app: FastifyInstance, who: Account, postId: string, body: string, parentId?: string) =>
  app.inject({
    method: 'POST',
    url: `/posts/${postId}/comments`,
    headers: who.auth,
    payload: { body, ...(parentId ? { parentId } : {}) },
  })

/** moderateComment by `who`. */
export const moderate = (app: FastifyInstance, who: Account, id: string, status: string) =>
  app.inject({ method: 'PATCH', url: `/comments/${id}/status`, headers: who.auth, payload: { status } })

/** listComments as `who` (anonymous for null), as `id:status` lines. */
export const listed = async (app: FastifyInstance, who: Account | null, postId: string) => {
  const response = await app.inject({ url: `/posts/${postId}/comments`, headers: who?.auth ?? {} })
  return (response.json().data as { id: string; status: string }[]).map(({ id, status }) => `${id}:${status}`)
}

/** The post's commentCount as anyone reads it. */
export const countOf = async (app: FastifyInstance, postId: string) =>
  (await app.inject({ url: `/posts/${postId}` })).json().data.commentCount as number
