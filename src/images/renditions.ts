// Turns an uploaded file into the thumbnail's renditions. The format comes from the bytes; the
// metadata the file carries is bounded by walking its container before any decoder sees it (a
// 816 KB PNG can carry 800 MB of compressed text, src/images/metadata-bounds.ts); the image's
// shape and the memory its decoding needs come from its header before anything is decoded (a
// 90-byte PNG can claim 20000×20000, a 78 KB one 1 × 40 000 000 pixels that take seconds to decode
// row by row, a 1.4 KB AVIF 40 megapixels that take 700 MB: src/images/decode-cost.ts), and every
// accepted image is decoded and re-encoded: what we store and serve is pixels we wrote ourselves,
// with no metadata (sharp keeps none unless asked), never the sender's file, so a file that is two
// formats at once, or carries GPS coordinates, goes no further than the decoder.
// All of it, header read included, runs in a slot of the work pool (src/images/work-pool.ts):
// nothing an image costs is paid outside its bound.
import { createHash } from 'node:crypto'
import type { Metadata, OutputInfo, SharpConstructor } from 'sharp'
import { ApiError, type ErrorCode } from '../errors/api-error.ts'
import { decodeCost } from './decode-cost.ts'
import { checkMetadata } from './metadata-bounds.ts'
import { renditionSize, thumbnailWidths, WEBP_MAX_SIDE } from './output-size.ts'
import { formatNames, sniffImageFormat, type ImageFormat } from './sniff.ts'
import type { WorkPool } from './work-pool.ts'

export { THUMBNAIL_WIDTHS } from './output-size.ts'

let sharpLoaded: Promise<SharpConstructor> | undefined

/**
 * sharp, loaded with the first image rather than at start-up: libvips holds tens of MB from the
 * moment it is loaded, which an instance that never processes an image need not pay.
 */
const loadSharp = () =>
  (sharpLoaded ??= import('sharp').then(({ default: sharp }: { default: SharpConstructor }) => {
    // Every upload is a new image: libvips's operation cache (50 MB by default) would only hold memory.
    sharp.cache(false)
    // One libvips thread per image: the work pool decides how many images run at once, and so how
    // many cores image work takes. (sharp's default on glibc without jemalloc is 1 already.)
    sharp.concurrency(1)
    return sharp
  }))

export interface Rendition {
  /** Content-addressed: the hex SHA-256 of `data` and the extension of its format. */
  key: string
  contentType: 'image/webp'
  width: number
  height: number
  data: Buffer
}

const fileError = (status: number, code: ErrorCode, message: string) =>
  new ApiError(status, code, message, [{ path: '/body/file', message }])
const unsupported = (accepted: readonly ImageFormat[]) =>
  fileError(415, 'IMAGE_UNSUPPORTED_TYPE', `The file is not a ${formatNames(accepted)} image.`)
const invalid = () => fileError(422, 'IMAGE_INVALID', 'The image could not be decoded.')

export interface ImageLimits {
  /** The formats taken (IMAGE_FORMATS), told by the file's bytes before anything is decoded. */
  accepted: readonly ImageFormat[]
  maxPixels: number
  /** Longest side over shortest side. */
  maxAspectRatio: number
  /** The peak memory decoding and encoding one image may take, as src/images/decode-cost.ts estimates it. */
  maxDecodedBytes: number
}

/** Where the work runs: the pool, the user it is for (who holds a bounded number of its places), and counters to add to. */
export interface ImageWork {
  pool: WorkPool
  owner?: string
  counts?: { decoded: number }
}

/** Refuses, from the header alone, an image whose decoding would cost more than we allow. */
function checkShape(metadata: Metadata, limits: ImageLimits) {
  const { width, height } = metadata
  const pixels = width * height
  if (pixels > limits.maxPixels) {
    throw fileError(
      422,
      'IMAGE_TOO_MANY_PIXELS',
      `The image has ${pixels} pixels; at most ${limits.maxPixels} are allowed.`,
    )
  }
  // A decoder works row by row: a 1 × 40 000 000 image costs 40 million rows for nothing a thumbnail can show.
  const ratio = Math.max(width, height) / Math.min(width, height)
  if (ratio > limits.maxAspectRatio) {
    throw fileError(
      422,
      'IMAGE_BAD_DIMENSIONS',
      `The image is ${width}×${height} pixels; its longer side may be at most ${limits.maxAspectRatio} times its shorter one.`,
    )
  }
  // What its decoder needs, not only what its pixels take: a progressive JPEG or an AVIF needs several times more.
  const cost = decodeCost(metadata)
  if (cost > limits.maxDecodedBytes) {
    const message = `Decoding the image would take about ${cost} bytes of memory (${width}×${height} pixels, ${metadata.channels} channels of ${metadata.depth}); at most ${limits.maxDecodedBytes} are allowed.`
    throw fileError(422, 'IMAGE_TOO_MANY_PIXELS', message)
  }
}

/** How libvips names what we sniffed (AVIF is HEIF with AV1 inside). */
const DECODER_FORMAT: Record<ImageFormat, string> = { jpeg: 'jpeg', png: 'png', webp: 'webp', gif: 'gif', avif: 'heif' }

async function readHeader(bytes: Buffer, format: ImageFormat, accepted: readonly ImageFormat[]) {
  // Before the decoder reads the header (and with it every metadata block, inflated), the blocks are bounded.
  const problem = await checkMetadata(bytes, format)
  if (problem?.kind === 'too-large') throw fileError(422, 'IMAGE_METADATA_TOO_LARGE', problem.message)
  if (problem?.kind === 'undecodable') throw invalid()
  const sharp = await loadSharp()
  let metadata: Metadata
  try {
    // Header only, nothing decoded: the pixel limit is ours to apply next, with its own error.
    metadata = await sharp(bytes, { limitInputPixels: false }).metadata()
  } catch {
    throw invalid()
  }
  // The decoder must agree with the sniffed signature (an `avif` brand around HEVC is HEIC: refused).
  if (metadata.format !== DECODER_FORMAT[format] || (format === 'avif' && metadata.compression !== 'av1'))
    throw unsupported(accepted)
  return metadata
}

/**
 * Checks the file against `limits`, then decodes it once and encodes every width, all in a slot of
 * `work.pool`. The pool's refusals (PoolBusyError, OwnerBusyError) are the caller's to answer.
 */
export async function makeRenditions(bytes: Buffer, limits: ImageLimits, work: ImageWork): Promise<Rendition[]> {
  const { accepted } = limits
  const format = sniffImageFormat(bytes)
  if (format === null || !accepted.includes(format)) throw unsupported(accepted)
  return work.pool.run(async () => {
    const metadata = await readHeader(bytes, format, accepted)
    checkShape(metadata, limits)
    if (work.counts) work.counts.decoded++
    return encode(bytes, metadata, limits.maxPixels)
  }, work.owner)
}

async function encode(bytes: Buffer, metadata: Metadata, maxPixels: number): Promise<Rendition[]> {
  // Widths as the image will be shown, after its EXIF orientation is applied.
  const shown = metadata.autoOrient
  const widths = thumbnailWidths(shown.width)
  const largest = Math.max(...widths)
  const sharp = await loadSharp()

  let decoded: { data: Buffer; info: OutputInfo }
  try {
    // Decoded once, straight to the largest width (JPEG and WebP decode at a fraction of their
    // size when they can), into raw pixels the narrower widths are made from. limitInputPixels
    // again, so that the decoder itself refuses what the header check let through. The first
    // page only (sharp's default): an animation becomes a still.
    decoded = await sharp(bytes, { limitInputPixels: maxPixels, sequentialRead: true })
      .autoOrient()
      .resize({ width: largest, height: WEBP_MAX_SIDE, fit: 'inside', withoutEnlargement: true })
      .raw()
      .toBuffer({ resolveWithObject: true })
  } catch {
    throw invalid()
  }
  const { width, height, channels } = decoded.info
  const renditions = new Map<string, Rendition>()
  for (const target of widths) {
    // Each width's size from the original's, as if resized from it: the intermediate's rounding
    // must not show (1400×2000 at 640 wide is 914 high, not 915 by way of 1280×1829).
    const size = renditionSize(shown, target)
    const output = await sharp(decoded.data, { raw: { width, height, channels } })
      .resize({ ...size, fit: 'fill' })
      .webp({ quality: 80 })
      .toBuffer({ resolveWithObject: true })
    const key = `${createHash('sha256').update(output.data).digest('hex')}.webp`
    // A very tall image can give two widths the same bytes once capped by WEBP_MAX_SIDE.
    renditions.set(key, {
      key,
      contentType: 'image/webp',
      width: output.info.width,
      height: output.info.height,
      data: output.data,
    })
  }
  return [...renditions.values()]
}
