// What decoding and re-encoding one image takes in memory at its peak, estimated from its header:
// the estimate must bound the real peak, for every format, so that IMAGE_MAX_DECODED_BYTES bounds
// what image work takes. Decoders differ far more than pixels × channels × depth says: a baseline
// JPEG or a plain PNG is read a few rows at a time (JPEG even at 1/2, 1/4 or 1/8 of its size),
// while a progressive JPEG keeps every DCT coefficient (2 bytes per sample) until its last scan,
// an interlaced PNG and a GIF are whole frames before the first row comes out, and AVIF (libheif
// with aom) holds the frame several times over, about 18.5 bytes a pixel at 8 bits.
// The factors are peaks measured with scripts/measure-decode-cost.ts (RSS of a process of its own,
// MALLOC_ARENA_MAX=2) at 9 and 36–40 megapixels, rounded up:
//   measured, bytes per pixel at 36–40 MP (9 MP)     factor here
//   JPEG baseline 0.3–0.4 (1.3–2.6, with output)     frame / 4
//   JPEG progressive 4:4:4 6.4 (7.8), CMYK 8.5 (10.1), 4:2:0 (4.7), grey (4.5)   2 × samples + 1
//   PNG plain 1.2–2.8 (1.7–5.0)                      frame / 2
//   PNG interlaced RGBA 5.1–5.2, 16-bit RGB 7.4     frame × 1.25 + 1
//   WebP lossy, lossless 0.3–0.7 (1.2–3.1)          frame / 2
//   GIF 5.4 (6.9)                                   6
//   AVIF 8-bit 18.5, 12-bit 24.8                    19, 25
// where frame = channels × bytes per sample, and samples = the JPEG's samples per pixel given its
// chroma subsampling (3 at 4:4:4, 1.5 at 4:2:0, 4 for CMYK). On top, the output: the decoded
// image at the largest thumbnail width, as raw pixels, then each width encoded to WebP: about
// 10 bytes per output pixel (a 1414 × 28 284 JPEG, shown 819 × 16 383: 101 MiB in all).
import type { Metadata } from 'sharp'
import { outputSize } from './output-size.ts'

/** Bytes per sample of each libvips band format. */
const SAMPLE_BYTES: Record<string, number> = {
  uchar: 1,
  char: 1,
  ushort: 2,
  short: 2,
  uint: 4,
  int: 4,
  float: 4,
  complex: 8,
  double: 8,
  dpcomplex: 16,
}

const OUTPUT_BYTES_PER_PIXEL = 10
/** What a decode costs whatever its size (codec state, the encoder's buffers). */
const FIXED_BYTES = 8 * 1024 * 1024

/** Samples per pixel of a JPEG from its chroma subsampling ("4:2:0" → 1 + 2 × ¼; "4:4:4:4", CMYK → 4). */
function jpegSamplesPerPixel(metadata: Metadata): number {
  const channels = metadata.channels ?? 4
  const parts = /^4:([124]):([0124])(?::4)?$/.exec(metadata.chromaSubsampling ?? '')
  if (channels !== 3 || parts === null) return channels
  const [horizontal, vertical] = [Number(parts[1]) / 4, Number(parts[2]) === 0 ? 0.5 : 1]
  return 1 + 2 * horizontal * vertical
}

/** Peak bytes per input pixel of the decoder for this image. */
function decoderBytesPerPixel(metadata: Metadata): number {
  const frame = (metadata.channels ?? 4) * (SAMPLE_BYTES[metadata.depth ?? ''] ?? 8)
  switch (metadata.format) {
    case 'jpeg':
      return metadata.isProgressive ? 2 * jpegSamplesPerPixel(metadata) + 1 : frame / 4
    case 'png':
      return metadata.isProgressive ? frame * 1.25 + 1 : frame / 2
    case 'webp':
      return frame / 2
    case 'gif':
      return 6
    case 'heif':
      return frame > (metadata.channels ?? 4) ? 25 : 19
    default:
      return frame * 2
  }
}

/** The estimated peak memory, in bytes, of decoding the image `metadata` describes and encoding its thumbnails. */
export function decodeCost(metadata: Metadata): number {
  const { width, height } = outputSize(metadata)
  return Math.ceil(
    metadata.width * metadata.height * decoderBytesPerPixel(metadata) +
      width * height * OUTPUT_BYTES_PER_PIXEL +
      FIXED_BYTES,
  )
}
