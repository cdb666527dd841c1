// Tag `revisions`: a post's revisions, its author's and admins' only (src/content/revisions).
import { page, success } from '../http/envelope.ts'
import type { OperationHandler } from '../http/operations.ts'
import { etagOf } from '../content/posts/post-view.ts'

export const listPostRevisions: OperationHandler<'listPostRevisions'> = async (request) => {
  const { items, page: pageMeta } = await request.server.services.revisions.list(
    request.principal,
    request.params.id,
    request.query,
  )
  return page(request, items, pageMeta)
}

export const getPostRevision: OperationHandler<'getPostRevision'> = async (request) =>
  success(
    request,
    await request.server.services.revisions.get(request.principal, request.params.id, request.params.revisionId),
  )

/** The post as restored, with its new ETag, as updatePost answers. */
export const restorePostRevision: OperationHandler<'restorePostRevision'> = async (request, reply) => {
  const post = await request.server.services.revisions.restore(
    request.principal!,
    request.params.id,
    request.params.revisionId,
    request.headers['if-match'],
  )
  reply.header('etag', etagOf(post))
  return success(request, post)
}
