// A media item as the server writes it.
import type { components } from '../../generated/api.ts'
import type { Wire } from '../../wire.ts'
import { imageUrl } from '../../storage/image-url.ts'
import type { MediaRecord } from './media-store.ts'

export type Media = components['schemas']['Media']
type ImageType = components['schemas']['ImageContentType']

/** Image URLs as thumbnails have them: `imageUrls` is imageUrlPrefix's (src/storage/image-url.ts), so one setting moves both. */
export function toMedia(media: MediaRecord, imageUrls: string): Wire<Media> {
  const sorted = [...media.renditions].sort((a, b) => a.width - b.width || (a.imageKey < b.imageKey ? -1 : 1))
  const renditions = sorted.map(({ image }) => ({
    width: image.width,
    height: image.height,
    url: imageUrl(imageUrls, image.key),
  }))
  const largest = sorted.at(-1)!
  return {
    id: media.id,
    ownerId: media.ownerId,
    url: imageUrl(imageUrls, largest.image.key),
    width: media.width,
    height: media.height,
    contentType: largest.image.contentType as ImageType,
    byteSize: media.byteSize,
    alt: media.alt,
    renditions,
    createdAt: media.createdAt.toISOString(),
  }
}
