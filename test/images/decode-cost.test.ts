// The cost model bounds what decoding really took: peaks measured with
// scripts/measure-decode-cost.ts (a process of its own per image, MALLOC_ARENA_MAX=2, RSS over the
// RSS after a warm-up), each below the model's estimate for the same header; and a format that
// needs more than its pixels (progressive JPEG, interlaced PNG, GIF, AVIF) is estimated above the
// same pixels in a format read a few rows at a time.
import t from 'tap'
import type { Metadata } from 'sharp'
import { decodeCost } from '../../src/images/decode-cost.ts'

const MiB = 1024 * 1024

function header(format: string, width: number, height: number, more: Partial<Metadata> = {}): Metadata {
  return {
    format,
    width,
    height,
    channels: 3,
    depth: 'uchar',
    isProgressive: false,
    autoOrient: { width, height },
    ...more,
  } as Metadata
}

const S = 6324
// [what, header, measured peak in MiB]
const measured: [string, Metadata, number][] = [
  ['progressive JPEG 4:4:4, 40 MP', header('jpeg', S, S, { isProgressive: true, chromaSubsampling: '4:4:4' }), 242],
  [
    'progressive CMYK JPEG, 40 MP',
    header('jpeg', S, S, { isProgressive: true, channels: 4, chromaSubsampling: '4:4:4:4' }),
    324,
  ],
  ['baseline JPEG 4:4:4, 40 MP', header('jpeg', S, S, { chromaSubsampling: '4:4:4' }), 16],
  ['progressive JPEG 4:2:0, 9 MP', header('jpeg', 3000, 3000, { isProgressive: true, chromaSubsampling: '4:2:0' }), 40],
  ['baseline CMYK JPEG, 9 MP', header('jpeg', 3000, 3000, { channels: 4, chromaSubsampling: '4:4:4:4' }), 22],
  [
    'baseline JPEG 1414 × 28 284 (tall: the output dominates)',
    header('jpeg', 1414, 28_284, { chromaSubsampling: '4:2:0' }),
    101,
  ],
  ['interlaced RGBA PNG, 40 MP', header('png', S, S, { isProgressive: true, channels: 4 }), 194],
  ['interlaced 16-bit RGB PNG, 36 MP', header('png', 6000, 6000, { isProgressive: true, depth: 'ushort' }), 255],
  ['plain 16-bit RGBA PNG, 36 MP', header('png', 6000, 6000, { channels: 4, depth: 'ushort' }), 96],
  ['plain 16-bit RGBA PNG 1000 × 20 000', header('png', 1000, 20_000, { channels: 4, depth: 'ushort' }), 144],
  ['GIF, 40 MP', header('gif', S, S, { channels: 4 }), 205],
  ['lossless WebP, 40 MP', header('webp', S, S), 25],
  ['lossy WebP with alpha, 9 MP', header('webp', 3000, 3000, { channels: 4 }), 27],
  ['AVIF 8-bit, 40 MP', header('heif', S, S), 704],
  ['AVIF 12-bit, 27 MP', header('heif', 5163, 5163, { depth: 'ushort' }), 630],
]

t.test('the estimate is above every measured peak', async (t) => {
  for (const [what, metadata, peakMiB] of measured) {
    const estimate = decodeCost(metadata) / MiB
    t.ok(estimate >= peakMiB, `${what}: estimated ${Math.round(estimate)} MiB, measured ${peakMiB} MiB`)
  }
})

t.test('the same 1000 × 1000 pixels cost more where the decoder holds more', async (t) => {
  const base = decodeCost(header('jpeg', 1000, 1000, { chromaSubsampling: '4:4:4' }))
  for (const costly of [
    header('jpeg', 1000, 1000, { isProgressive: true, chromaSubsampling: '4:4:4' }),
    header('png', 1000, 1000, { isProgressive: true }),
    header('gif', 1000, 1000),
    header('heif', 1000, 1000),
  ]) {
    t.ok(
      decodeCost(costly) > base,
      `${costly.format}${costly.isProgressive ? ' progressive' : ''}: ${decodeCost(costly)} > ${base}`,
    )
  }
  t.ok(
    decodeCost(header('png', 1000, 1000, { depth: 'ushort' })) > decodeCost(header('png', 1000, 1000)),
    '16 bits cost more than 8',
  )
})
