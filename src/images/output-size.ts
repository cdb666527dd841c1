// The thumbnail widths an image gets, and the size it is decoded to once (the largest of them):
// from its header, so that the decoding's cost can be estimated before it starts.
import type { Metadata } from 'sharp'

/** The widths the spec promises; an image is never upscaled, so a narrower one gets fewer. */
export const THUMBNAIL_WIDTHS = [320, 640, 1280] as const
/** The longest side WebP can encode: a very tall image is scaled down to fit it. */
export const WEBP_MAX_SIDE = 16383

/** The widths of an image shown `shownWidth` wide (after its EXIF orientation is applied). */
export function thumbnailWidths(shownWidth: number): number[] {
  const widths: number[] = THUMBNAIL_WIDTHS.filter((width) => width <= shownWidth)
  if (widths.length === 0) widths.push(shownWidth)
  return widths
}

/** The size of a rendition `target` wide of an image shown `shown`: as if resized from the original, within WEBP_MAX_SIDE. */
export function renditionSize(shown: { width: number; height: number }, target: number) {
  const scale = Math.min(target / shown.width, WEBP_MAX_SIDE / shown.height, 1)
  return { width: Math.max(1, Math.round(shown.width * scale)), height: Math.max(1, Math.round(shown.height * scale)) }
}

/** The size the image is decoded to: its largest rendition's. */
export function outputSize(metadata: Metadata) {
  const shown = metadata.autoOrient
  return renditionSize(shown, Math.max(...thumbnailWidths(shown.width)))
}
