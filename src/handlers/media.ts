// Tag `media`: each user's media library. Roles come from the spec's security; ownership and the
// quota from the service.
import { page, success } from '../http/envelope.ts'
import type { OperationHandler } from '../http/operations.ts'
import { readSingleFile } from '../http/body/upload.ts'

export const uploadMedia: OperationHandler<'uploadMedia'> = async (request, reply) => {
  const { auth, media, config } = request.server.services
  const principal = request.principal!
  // Rights, quota and allowance first: a refused upload is answered before a byte of it is read.
  auth.requireVerifiedEmail(principal)
  await media.admitUpload(principal)
  const file = await readSingleFile(request, 'file', config.uploadLimitBytes)
  reply.code(201)
  return success(request, await media.upload(principal, file))
}

export const listMedia: OperationHandler<'listMedia'> = async (request) => {
  const { items, page: pageMeta } = await request.server.services.media.list(request.principal!, request.query)
  return page(request, items, pageMeta)
}

export const getMedia: OperationHandler<'getMedia'> = async (request) =>
  success(request, await request.server.services.media.get(request.principal, request.params.id))

export const updateMedia: OperationHandler<'updateMedia'> = async (request) =>
  success(request, await request.server.services.media.update(request.principal!, request.params.id, request.body))

export const deleteMedia: OperationHandler<'deleteMedia'> = async (request, reply) => {
  await request.server.services.media.remove(request.principal!, request.params.id, request.query.force ?? false)
  reply.code(204)
  return undefined
}
