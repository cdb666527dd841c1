// What an image may carry beside its pixels, checked before any decoder sees it. Decoders read
// metadata when they read the header, and some inflate it: libpng inflates every zTXt, iTXt and
// iCCP chunk, so an 816 KB PNG of 64×64 pixels with 20 zTXt chunks of 40 MB each took 41 s and
// 4 GB to read. We keep none of it (re-encoding writes no metadata), so the bound only has to let
// ordinary files through: a camera or phone photo carries 10–100 KB (EXIF up to 64 KB with its
// preview, XMP, an ICC profile of a few KB) in a handful of blocks.
import { constants, inflate } from 'node:zlib'
import { metadataBlocks } from './metadata-blocks.ts'
import type { ImageFormat } from './sniff.ts'

/** Metadata blocks (chunks, segments, extensions, items) per image. */
export const METADATA_MAX_BLOCKS = 64
/** Metadata bytes per image, all blocks together, compressed ones counted once inflated. */
export const METADATA_MAX_BYTES = 1024 * 1024

export type MetadataProblem = { kind: 'too-large'; message: string } | { kind: 'undecodable' }

/**
 * How many bytes `deflated` inflates to, up to `limit` (a larger stream stops there: nothing past
 * the limit is produced). Null when it is not a zlib stream. Inflated off the main thread.
 */
function inflatedSize(deflated: Buffer, limit: number): Promise<number | null> {
  return new Promise((resolve) => {
    // A truncated stream is measured as far as it goes, as libpng would read it.
    inflate(deflated, { maxOutputLength: limit, finishFlush: constants.Z_SYNC_FLUSH }, (error, output) => {
      if (error === null) resolve(output.length)
      else resolve((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' ? limit + 1 : null)
    })
  })
}

/** Walks the file's metadata (linear in its size, inflating at most METADATA_MAX_BYTES + 1 bytes in all); null when it is within the bounds. */
export async function checkMetadata(bytes: Buffer, format: ImageFormat): Promise<MetadataProblem | null> {
  let blocks = 0
  let total = 0
  for (const block of metadataBlocks(bytes, format)) {
    blocks++
    if (blocks > METADATA_MAX_BLOCKS) {
      return {
        kind: 'too-large',
        message: `The image carries more than ${METADATA_MAX_BLOCKS} metadata blocks (text, EXIF, XMP, ICC profiles, comments); at most ${METADATA_MAX_BLOCKS} are allowed.`,
      }
    }
    if ('deflated' in block) {
      const size = await inflatedSize(block.deflated, Math.max(1, METADATA_MAX_BYTES - total))
      // A compressed block its decoder could not inflate either; what it would read before failing is not known.
      if (size === null) return { kind: 'undecodable' }
      total += size
    } else total += block.size
    if (total > METADATA_MAX_BYTES) {
      return {
        kind: 'too-large',
        message: `The image carries more than ${METADATA_MAX_BYTES} bytes of metadata (text, EXIF, XMP, ICC profiles, comments; compressed ones once inflated); at most ${METADATA_MAX_BYTES} are allowed.`,
      }
    }
  }
  return null
}
