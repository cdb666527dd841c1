// An image's url, from its key: the one place it is built (toPost, the list SQL, media and the
// renderer all take the prefix from here), so a list item and getPost are the same bytes.
import type { StorageConfig } from '../config/storage.ts'
import { urlPrefixOf, type ImageUrls } from '../images/image-urls.ts'

type UrlSettings = Pick<StorageConfig, 'mediaPublicBaseUrl'> & { publicPath: string }

/** The settings image urls are made of, as the renderer's worker and the body's media lookup take them. */
export const imageUrlsOf = (config: UrlSettings): ImageUrls =>
  config.mediaPublicBaseUrl === null
    ? { publicPath: config.publicPath }
    : { publicPath: config.publicPath, publicBaseUrl: config.mediaPublicBaseUrl }

/**
 * What every image url starts with, before the key: `${MEDIA_PUBLIC_BASE_URL}/` when a CDN or a
 * public bucket serves the images, else getImage's absolute path under PUBLIC_URL's path
 * (`${publicPath}/images/`, which clients resolve against PUBLIC_URL's origin).
 */
export const imageUrlPrefix = (config: UrlSettings): string => urlPrefixOf(imageUrlsOf(config))

/** The url of the image `key`, given imageUrlPrefix's prefix. */
export const imageUrl = (prefix: string, key: string): string => `${prefix}${key}`
