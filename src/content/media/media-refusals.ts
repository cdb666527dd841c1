// The media library's refusals, with the details clients act on.
import { ApiError, notFound, type ErrorDetail } from '../../errors/api-error.ts'

export const mediaNotFound = () => notFound('MEDIA_NOT_FOUND', 'Media item')

/**
 * 413: the owner's items use `used` of `quota` bytes, and `needed` more (0: checked before the body
 * was read) do not fit. An image larger than the whole quota is told so: deleting items would not help.
 */
export function quotaExceeded(used: number, quota: number, needed: number) {
  if (needed > quota)
    return new ApiError(
      413,
      'MEDIA_QUOTA_EXCEEDED',
      'This image is larger than your whole media quota; upload a smaller one.',
      [{ path: '/body/file', message: `This image needs ${needed} bytes; the quota is ${quota} bytes.` }],
    )
  const message = `${used} of ${quota} bytes used${needed > 0 ? `; this image needs ${needed}` : ''}.`
  return new ApiError(413, 'MEDIA_QUOTA_EXCEEDED', 'Your media library is full; delete items to make room.', [
    { path: '/body/file', message },
  ])
}

/** How many posts MEDIA_IN_USE names; the rest are counted in a last `truncated` entry. */
export const IN_USE_LISTED = 20

export function inUse(postIds: string[], total: number) {
  const details: ErrorDetail[] = postIds.map((id) => ({ path: `/posts/${id}`, message: 'shows this media item' }))
  if (total > postIds.length) {
    details.push({ path: '/posts', message: `${total - postIds.length} more posts show it`, code: 'truncated' })
  }
  const posts = total === 1 ? '1 post shows' : `${total} posts show`
  return new ApiError(
    409,
    'MEDIA_IN_USE',
    `${posts} this media item; delete it with force=true to delete it anyway.`,
    details,
  )
}
