// A media item as the server writes it.
import type { components } from '../../generated/api.ts'
import type { Wire } from '../../wire.ts'
import { imagesPath } from '../posts/post-view.ts'
import type { MediaRecord } from './media-store.ts'

export type Media = components['schemas']['Media']
type ImageType = components['schemas']['ImageContentType']

/** Image URLs as thumbnails have them (post-view.ts's imagesPath), so one setting moves both. */
export function toMedia(media: MediaRecord, publicPath: string): Wire<Media> {
  const images = imagesPath(publicPath)
  const sorted = [...media.renditions].sort((a, b) => a.width - b.width || (a.imageKey < b.imageKey ? -1 : 1))
  const renditions = sorted.map(({ image }) => ({
    width: image.width,
    height: image.height,
    url: `${images}${image.key}`,
  }))
  const largest = sorted.at(-1)!
  return {
    id: media.id,
    ownerId: media.ownerId,
    url: `${images}${largest.image.key}`,
    width: media.width,
    height: media.height,
    contentType: largest.image.contentType as ImageType,
    byteSize: media.byteSize,
    alt: media.alt,
    renditions,
    createdAt: media.createdAt.toISOString(),
  }
}
