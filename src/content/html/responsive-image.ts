// The <img> of a media item shown in a post (Markdown `![alt](<media url>)`): every rendition in
// srcset, the largest as src, its size, lazy loading and async decoding, so a reader's browser
// fetches the width it needs and lays out the page before the image arrives. Runs on the
// renderer's worker thread (markdown.ts).
//
// The attributes written here are the only responsive ones a post's html may carry: the sanitizer
// keeps srcset, sizes, width, height, loading and decoding on an <img> only when they are exactly
// those this render wrote (keepWritten). markdown-it with raw HTML off writes none of them from an
// author's text; this check holds should a parser bug or a future option let one through.
import type { Attributes } from 'sanitize-html'
import { mediaKeyOf, urlPrefixOf } from '../../images/image-urls.ts'
import type { BodyMedia, MediaImage } from './body-media.ts'

/** Attributes only a media item's <img> carries, in the order it writes them (around alt and title). */
const RESPONSIVE = ['srcset', 'sizes', 'width', 'height', 'loading', 'decoding'] as const

/** What one render wrote: the media items shown, and each <img>'s responsive attributes. */
export interface WrittenMedia {
  mediaIds: Set<string>
  images: Set<string>
}

export const nothingWritten = (): WrittenMedia => ({ mediaIds: new Set(), images: new Set() })

/** The responsive attributes of an <img> (src with them), as one string to compare. */
const signatureOf = (attributes: Record<string, string | undefined>) =>
  JSON.stringify([attributes.src, ...RESPONSIVE.map((name) => attributes[name])])

/** The media item an image's URL names, when it is one of the author's; undefined otherwise. */
export function mediaAt(media: BodyMedia | undefined, src: string): MediaImage | undefined {
  if (media === undefined) return undefined
  const key = mediaKeyOf(media.urls, src)
  return key === null ? undefined : media.byKey[key]
}

/**
 * The <img> of `item`, as HTML. `alt` is the Markdown's alt text; when it is empty the item's own
 * alt text is used (the author's words for this post win; the library's are the default), and
 * when both are empty, alt="" (a decorative image, skipped by screen readers).
 */
export function responsiveImage(
  media: BodyMedia,
  item: MediaImage,
  text: { alt: string; title: string | null },
  escape: (text: string) => string,
  written: WrittenMedia,
): string {
  const renditions = [...item.renditions].sort((a, b) => a.width - b.width)
  const largest = renditions.at(-1)!
  const attributes: Record<string, string> = {
    src: `${urlPrefixOf(media.urls)}${largest.key}`,
    srcset: renditions.map((rendition) => `${urlPrefixOf(media.urls)}${rendition.key} ${rendition.width}w`).join(', '),
    sizes: `(max-width: ${item.width}px) 100vw, ${item.width}px`,
    width: String(item.width),
    height: String(item.height),
    alt: text.alt !== '' ? text.alt : (item.alt ?? ''),
    ...(text.title === null ? {} : { title: text.title }),
    loading: 'lazy',
    decoding: 'async',
  }
  written.mediaIds.add(item.id)
  written.images.add(signatureOf(attributes))
  const html = Object.entries(attributes)
    .map(([name, value]) => ` ${name}="${escape(value)}"`)
    .join('')
  return `<img${html}>`
}

/**
 * The sanitizer's transform of <img>: its responsive attributes are kept only when they are, with
 * its src, exactly those a media item's <img> was written with in this render; otherwise all of
 * them go (src, alt and title stay, checked as for any image).
 */
export const keepWritten =
  (written: WrittenMedia) =>
  (tagName: string, attribs: Attributes): { tagName: string; attribs: Attributes } => {
    if (!RESPONSIVE.some((name) => name in attribs) || written.images.has(signatureOf(attribs)))
      return { tagName, attribs }
    const kept = { ...attribs }
    for (const name of RESPONSIVE) delete kept[name]
    return { tagName, attribs: kept }
  }
