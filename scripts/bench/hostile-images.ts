// Images that cost a server far more than their bytes: for tests of the image bounds and for the
// benchmark's abuse figure. Every one is a valid image that decodes; none needs a file on disk.
//   import { hostileUploads, thinPng, deepPng, flatPng } from '../scripts/bench/hostile-images.ts'
import { deflateSync, crc32 } from 'node:zlib'
import sharp from 'sharp'

/** One PNG chunk: length, type, data and CRC. */
export function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8)
  head.writeUInt32BE(data.length, 0)
  head.write(type, 4, 'ascii')
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0)
  return Buffer.concat([head, data, crc])
}

/**
 * An 8-bit greyscale PNG one pixel wide and `height` rows tall (or `height` wide and one tall):
 * 1 × 40 000 000 is about 78 KB and takes a decoder seconds, row by row. Written with zlib, not
 * sharp: libvips encodes such an image a row at a time too (20–30 s for 40 M rows).
 */
export function thinPng(height: number, orientation: 'tall' | 'wide' = 'tall'): Buffer {
  const [width, rows] = orientation === 'tall' ? [1, height] : [height, 1]
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(rows, 4)
  header.writeUInt8(8, 8) // bit depth
  header.writeUInt8(0, 9) // greyscale; compression, filter and interlace stay 0
  // Each row: filter type 0, then its pixels, all mid-grey.
  const raw = Buffer.alloc(rows * (width + 1), 0x80)
  for (let row = 0; row < rows; row++) raw[row * (width + 1)] = 0
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
  return Buffer.concat([
    signature,
    pngChunk('IHDR', header),
    pngChunk('IDAT', deflateSync(raw, { level: 9 })),
    pngChunk('IEND', Buffer.alloc(0)),
  ])
}

/**
 * A 16-bit RGB PNG (`ushort` samples): twice the memory of an 8-bit image of the same pixels once
 * decoded. `noise` makes it photo-like (a large file); without it, one colour (a tiny file).
 */
export function deepPng(width: number, height: number, noise = false): Promise<Buffer> {
  const create = {
    width,
    height,
    channels: 3 as const,
    background: '#3366cc',
    ...(noise ? { noise: { type: 'gaussian' as const, mean: 128, sigma: 30 } } : {}),
  }
  return sharp({ create, limitInputPixels: false }).toColourspace('rgb16').png().toBuffer()
}

/**
 * A PNG of one colour with a two-entry palette (1 bit per pixel in the file, 8-bit RGB once
 * decoded): large dimensions in a tiny file (8000 × 5000 is about 5 KB, 120 MB decoded).
 */
export function flatPng(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: '#cc6633' }, limitInputPixels: false })
    .png({ palette: true, colours: 2 })
    .toBuffer()
}

export interface HostileUpload {
  name: string
  bytes: Buffer
}

/**
 * The mix the issue measured, `count` uploads in turn: thin 1 × 40 M PNGs (decoding time),
 * 16-bit 8000 × 5000 PNGs (memory) and 5 KB palette PNGs of 8000 × 5000 pixels (pixels per byte). About 2 s to make.
 */
export async function hostileUploads(count = 12): Promise<HostileUpload[]> {
  const kinds: HostileUpload[] = [
    { name: 'thin 1×40000000 PNG', bytes: thinPng(40_000_000) },
    { name: '16-bit 8000×5000 PNG', bytes: await deepPng(8000, 5000) },
    { name: 'palette 8000×5000 PNG', bytes: await flatPng(8000, 5000) },
  ]
  return Array.from({ length: count }, (_, index) => kinds[index % kinds.length]!)
}
