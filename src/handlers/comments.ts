// Tag `comments`. Signed-in-only operations are enforced by the spec's security; ownership by the service.
import { page, success } from '../http/envelope.ts'
import type { OperationHandler } from '../http/operations.ts'

export const listComments: OperationHandler<'listComments'> = async (request) => {
  const { comments, page: pageMeta } = await request.server.services.comments.list(
    request.principal,
    request.params.id,
    request.query,
  )
  return page(request, comments, pageMeta)
}

export const createComment: OperationHandler<'createComment'> = async (request, reply) => {
  const { auth, comments } = request.server.services
  auth.requireVerifiedEmail(request.principal!)
  const comment = await comments.create(request.principal!, request.params.id, request.body)
  reply.code(201)
  return success(request, comment)
}

export const updateComment: OperationHandler<'updateComment'> = async (request) =>
  success(request, await request.server.services.comments.update(request.principal!, request.params.id, request.body))

export const listCommentsForModeration: OperationHandler<'listCommentsForModeration'> = async (request) => {
  const { comments, page: pageMeta } = await request.server.services.commentModeration.list(request.query)
  return page(request, comments, pageMeta)
}

export const moderateComment: OperationHandler<'moderateComment'> = async (request) =>
  success(
    request,
    await request.server.services.commentModeration.moderate(
      request.principal!,
      request.params.id,
      request.body.status,
    ),
  )

export const deleteComment: OperationHandler<'deleteComment'> = async (request, reply) => {
  await request.server.services.comments.remove(request.principal!, request.params.id)
  reply.code(204)
  return undefined
}
