// Tag `images`: post thumbnails and the image bytes behind them.
import { etagOf } from '../content/posts/post-view.ts'
import { notFound } from '../errors/api-error.ts'
import { ifNoneMatchHits } from '../http/headers/conditional.ts'
import { success } from '../http/envelope.ts'
import type { OperationHandler } from '../http/operations.ts'
import { readSingleFile } from '../http/body/upload.ts'
import { storageUnavailable } from '../storage/driver.ts'

/** A key names one set of bytes forever: caches may keep them as long as they like. */
const IMMUTABLE = 'public, max-age=31536000, immutable'

export const uploadPostThumbnail: OperationHandler<'uploadPostThumbnail'> = async (request, reply) => {
  const { auth, thumbnails, config } = request.server.services
  const principal = request.principal!
  // The caller's rights and allowance first: a stranger's upload is refused before a byte of it is read.
  auth.requireVerifiedEmail(principal)
  await thumbnails.admitUpload(principal, request.params.id)
  const file = await readSingleFile(request, 'file', config.uploadLimitBytes)
  const post = await thumbnails.set(principal, request.params.id, file)
  reply.header('etag', etagOf(post))
  return success(request, post)
}

export const deletePostThumbnail: OperationHandler<'deletePostThumbnail'> = async (request, reply) => {
  await request.server.services.thumbnails.remove(request.principal!, request.params.id)
  reply.code(204)
  return undefined
}

export const getImage: OperationHandler<'getImage'> = async (request, reply) => {
  const { thumbnails, storage } = request.server.services
  const { key } = request.params
  // Strong: the key is the SHA-256 of the bytes, so equal tags mean byte-for-byte equal images.
  const etag = `"${key}"`
  if (ifNoneMatchHits(request.headers['if-none-match'], etag)) {
    if (!(await thumbnails.imageExists(key))) throw notFound('IMAGE_NOT_FOUND', 'Image')
    reply.code(304).headers({ etag, 'cache-control': IMMUTABLE })
    return undefined
  }
  const image = await thumbnails.findImage(key)
  if (image === null) throw notFound('IMAGE_NOT_FOUND', 'Image')
  // From the database, or streamed from the bucket as it arrives (never held whole); a store that
  // is down or slow throws StorageUnavailableError, answered 503 with Retry-After.
  const bytes = await storage.at(image.location).read(key, image.data)
  if (bytes === null) {
    // Only an unused image can lack its bytes (a sweep deleted them and failed before its commit).
    request.log.warn({ key, location: image.location }, 'image row without its bytes')
    throw notFound('IMAGE_NOT_FOUND', 'Image')
  }
  const length = bytes.kind === 'buffer' ? bytes.data.length : bytes.length
  if (length !== image.byteSize) {
    // Not the object we stored (a proxy's page, a truncated copy): never served under an immutable URL.
    if (bytes.kind === 'stream') bytes.stream.destroy()
    request.log.warn(
      { key, location: image.location, length, byteSize: image.byteSize },
      'image bytes of the wrong size',
    )
    throw storageUnavailable()
  }
  // The bytes are our own WebP encoding; nosniff keeps browsers from reading them as anything else.
  reply.headers({
    etag,
    'cache-control': IMMUTABLE,
    'content-type': image.contentType,
    'content-length': length,
    'x-content-type-options': 'nosniff',
  })
  // Binary, not an envelope: sent here, so the handler returns nothing. Awaited until the answer
  // has gone: a stream is still flowing when send returns, and an async handler that resolved
  // first would have Fastify answer again, empty.
  await reply.send(bytes.kind === 'buffer' ? bytes.data : bytes.stream)
  return undefined
}
