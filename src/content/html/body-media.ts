// The media a body may show: the keys of the media URLs written in it, found before rendering so
// that one query can look them up among the author's media (body-media-store.ts), and what the
// renderer is handed about each (responsive-image.ts writes the <img>).
//
// The body is the author's text, up to 100 000 characters: it is read once, left to right, with
// indexOf and a fixed-length check per candidate, never with a pattern that could backtrack
// (test/content/html/media-keys.test.ts counts the work). What it finds is a superset of the
// images the renderer will show (a URL in a code block or a link is found too); the renderer
// decides, from the parsed Markdown, which of them are images.
import { imageUrlPrefixes, isMediaKeyAt, MEDIA_KEY_LENGTH, type ImageUrls } from '../../images/image-urls.ts'

/**
 * Distinct media URLs of a body that are looked up: a post shows at most this many media items
 * responsively (Post.mediaIds' maxItems); images past them render plain.
 */
export const MEDIA_PER_POST = 100

/** One media item, as the renderer needs it: what it writes into the <img>. */
export interface MediaImage {
  id: string
  /** The item's own alt text; used where the Markdown gives none. */
  alt: string | null
  /** The largest rendition's size. */
  width: number
  height: number
  /** Every rendition: its image key and width. */
  renditions: { key: string; width: number }[]
}

/** What the renderer gets with a body: how image URLs are spelled, and the author's media by rendition key. */
export interface BodyMedia {
  urls: ImageUrls
  byKey: Record<string, MediaImage>
}

/**
 * The keys of the first `max` distinct media URLs in `body`, in order: every `<prefix><64 hex>.webp`
 * for each of our URL prefixes. Linear: each `.webp` is found once by indexOf, and checked by a
 * fixed-length look back (the key) and one startsWith per prefix.
 */
export function mediaKeysIn(body: string, urls: ImageUrls, max = MEDIA_PER_POST): string[] {
  const prefixes = imageUrlPrefixes(urls)
  const keys = new Set<string>()
  const keyLength = MEDIA_KEY_LENGTH - '.webp'.length
  for (let dot = body.indexOf('.webp'); dot !== -1 && keys.size < max; dot = body.indexOf('.webp', dot + 1)) {
    const start = dot - keyLength
    if (!isMediaKeyAt(body, start)) continue
    if (prefixes.some((prefix) => start >= prefix.length && body.startsWith(prefix, start - prefix.length)))
      keys.add(body.slice(start, start + MEDIA_KEY_LENGTH))
  }
  return [...keys]
}
