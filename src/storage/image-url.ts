// An image's url, from its key: the one place it is built (toPost, the list SQL, media and the
// renderer all take the prefix from here), so a list item and getPost are the same bytes.
import type { StorageConfig } from '../config/storage.ts'

/**
 * What every image url starts with, before the key: `${MEDIA_PUBLIC_BASE_URL}/` when a CDN or a
 * public bucket serves the images, else getImage's absolute path under PUBLIC_URL's path
 * (`${publicPath}/images/`, which clients resolve against PUBLIC_URL's origin).
 */
export const imageUrlPrefix = (config: Pick<StorageConfig, 'mediaPublicBaseUrl'> & { publicPath: string }): string =>
  config.mediaPublicBaseUrl === null ? `${config.publicPath}/images/` : `${config.mediaPublicBaseUrl}/`

/** The url of the image `key`, given imageUrlPrefix's prefix. */
export const imageUrl = (prefix: string, key: string): string => `${prefix}${key}`
