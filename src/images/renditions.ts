// Turns an uploaded file into the thumbnail's renditions. The format comes from the bytes, the
// pixel count from the header before anything is decoded (a 90-byte PNG can claim 20000×20000),
// and every accepted image is decoded and re-encoded: what we store and serve is pixels we wrote
// ourselves, with no metadata (sharp keeps none unless asked), never the sender's file, so a file
// that is two formats at once, or carries GPS coordinates, goes no further than the decoder.
import { createHash } from 'node:crypto'
import sharp, { type Metadata, type OutputInfo } from 'sharp'
import { ApiError, type ErrorCode } from '../http/api-error.ts'
import { formatNames, sniffImageFormat, type ImageFormat } from './sniff.ts'

/** The widths the spec promises; an image is never upscaled, so a narrower one gets fewer. */
export const THUMBNAIL_WIDTHS = [320, 640, 1280] as const
/** The longest side WebP can encode: a very tall image is scaled down to fit it. */
const WEBP_MAX_SIDE = 16383

export interface Rendition {
  /** Content-addressed: the hex SHA-256 of `data` and the extension of its format. */
  key: string
  contentType: 'image/webp'
  width: number
  height: number
  data: Buffer
}

const fileError = (status: number, code: ErrorCode, message: string) => new ApiError(status, code, message, [{ path: '/body/file', message }])
const unsupported = (accepted: readonly ImageFormat[]) => fileError(415, 'IMAGE_UNSUPPORTED_TYPE', `The file is not a ${formatNames(accepted)} image.`)
const invalid = () => fileError(422, 'IMAGE_INVALID', 'The image could not be decoded.')

/** How libvips names what we sniffed (AVIF is HEIF with AV1 inside). */
const DECODER_FORMAT: Record<ImageFormat, string> = { jpeg: 'jpeg', png: 'png', webp: 'webp', gif: 'gif', avif: 'heif' }

async function readHeader(bytes: Buffer, format: ImageFormat, accepted: readonly ImageFormat[]) {
  let metadata: Metadata
  try {
    // Header only, nothing decoded: the pixel limit is ours to apply next, with its own error.
    metadata = await sharp(bytes, { limitInputPixels: false }).metadata()
  } catch {
    throw invalid()
  }
  // The decoder must agree with the sniffed signature (an `avif` brand around HEVC is HEIC: refused).
  if (metadata.format !== DECODER_FORMAT[format] || (format === 'avif' && metadata.compression !== 'av1')) throw unsupported(accepted)
  return metadata
}

/** `accepted`: the formats taken (IMAGE_FORMATS), told by the file's bytes before anything is decoded. */
export async function makeRenditions(bytes: Buffer, limits: { maxPixels: number; accepted: readonly ImageFormat[] }): Promise<Rendition[]> {
  const { maxPixels, accepted } = limits
  const format = sniffImageFormat(bytes)
  if (format === null || !accepted.includes(format)) throw unsupported(accepted)
  const metadata = await readHeader(bytes, format, accepted)
  const pixels = metadata.width * metadata.height
  if (pixels > maxPixels) {
    const message = `The image has ${pixels} pixels; at most ${maxPixels} are allowed.`
    throw fileError(422, 'IMAGE_TOO_MANY_PIXELS', message)
  }
  // Widths as the image will be shown, after its EXIF orientation is applied.
  const shownWidth = metadata.autoOrient.width
  const widths: number[] = THUMBNAIL_WIDTHS.filter((width) => width <= shownWidth)
  if (widths.length === 0) widths.push(shownWidth)

  // limitInputPixels again, so the decoder itself refuses what the header check let through.
  // The first page only (sharp's default): an animation becomes a still.
  const decoded = sharp(bytes, { limitInputPixels: maxPixels }).autoOrient()
  const renditions = new Map<string, Rendition>()
  for (const width of widths) {
    let output: { data: Buffer; info: OutputInfo }
    try {
      // One at a time: each decode of a large image holds its pixels in memory.
      output = await decoded
        .clone()
        .resize({ width, height: WEBP_MAX_SIDE, fit: 'inside', withoutEnlargement: true })
        .webp({ quality: 80 })
        .toBuffer({ resolveWithObject: true })
    } catch {
      throw invalid()
    }
    const key = `${createHash('sha256').update(output.data).digest('hex')}.webp`
    // A very tall image can give two widths the same bytes once capped by WEBP_MAX_SIDE.
    renditions.set(key, { key, contentType: 'image/webp', width: output.info.width, height: output.info.height, data: output.data })
  }
  return [...renditions.values()]
}
