// Where clients fetch a stored image, and the way back: which stored image a URL written in a post's
// body names. Plain data and string work only: the renderer's worker thread uses it too
// (src/content/html/responsive-image.ts), and a URL there is the author's text, so it is parsed by
// its exact shape, never searched with a pattern.

/**
 * What image URLs are built from: PUBLIC_URL's path (config.publicPath, '' or '/blog') and, where
 * images are served from elsewhere (a CDN or a public bucket), that base URL without a trailing
 * slash. Without the base, images are served by getImage under the path.
 */
export interface ImageUrls {
  publicPath: string
  publicBaseUrl?: string
}

/**
 * What a thumbnail's url starts with, before the image's key: getImage's path under PUBLIC_URL's
 * path. An absolute-path reference: clients resolve it against PUBLIC_URL's origin, and a proxy
 * serving the API under that path strips it. toPost and the list SQL (postColumns) both write it
 * from here.
 */
export const imagesPath = (publicPath: string) => `${publicPath}/images/`

/**
 * What the URL responses and rendered HTML give for a stored image starts with, before its key:
 * the public base's when set, else getImage's path. src/storage/image-url.ts's imageUrlPrefix is
 * this, from the settings.
 */
export const urlPrefixOf = (urls: ImageUrls) =>
  urls.publicBaseUrl === undefined ? imagesPath(urls.publicPath) : `${urls.publicBaseUrl}/`

/** The URLs image URLs start with: getImage's, always served, and the public base's when set. */
export const imageUrlPrefixes = (urls: ImageUrls): string[] =>
  urls.publicBaseUrl === undefined ? [imagesPath(urls.publicPath)] : [imagesPath(urls.publicPath), urlPrefixOf(urls)]

/** A media rendition's key: the hex SHA-256 of its bytes and `.webp` (src/images/renditions.ts). */
export const MEDIA_KEY_LENGTH = 64 + '.webp'.length

const isLowerHex = (code: number) => (code >= 0x30 && code <= 0x39) || (code >= 0x61 && code <= 0x66)

/** Whether `text` holds a media key at `at`: 64 lower-case hex digits, then `.webp`. */
export function isMediaKeyAt(text: string, at: number): boolean {
  if (at < 0 || at + MEDIA_KEY_LENGTH > text.length) return false
  for (let i = at; i < at + 64; i++) if (!isLowerHex(text.charCodeAt(i))) return false
  return text.startsWith('.webp', at + 64)
}

/**
 * The key a URL names when it is exactly one of our image URLs for a media rendition
 * (`<prefix><key>`, nothing before or after: no query, fragment or other spelling); null otherwise.
 */
export function mediaKeyOf(urls: ImageUrls, url: string): string | null {
  for (const prefix of imageUrlPrefixes(urls)) {
    if (url.length === prefix.length + MEDIA_KEY_LENGTH && url.startsWith(prefix) && isMediaKeyAt(url, prefix.length))
      return url.slice(prefix.length)
  }
  return null
}
