// What decoding one image costs in memory, per format, to set and check the cost model in
// src/images/decode-cost.ts: each image is made at start, then processed in a child process of its
// own (MALLOC_ARENA_MAX=2, as `npm start` runs) exactly as an upload is (makeRenditions); the
// child's RSS is sampled every 10 ms and its peak over the RSS after a warm-up decode is reported,
// in bytes per pixel, next to the model's estimate for the same image.
//   npx node --import=tsx scripts/measure-decode-cost.ts [side=3000] [kind…]   (kinds: words of their names)
//   npx node --import=tsx scripts/measure-decode-cost.ts files <path…>          (images of your own)
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import sharp from 'sharp'

const CHILD = `
import { readFileSync } from 'node:fs'
import sharp from 'sharp'
import { makeRenditions } from './src/images/renditions.ts'
import { makeWorkPool } from './src/images/work-pool.ts'
const rss = () => Number(/VmRSS:\\s+(\\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))[1]) * 1024
const limits = { accepted: ['jpeg', 'png', 'webp', 'gif', 'avif'], maxPixels: 500_000_000, maxAspectRatio: 10_000, maxDecodedBytes: Number.MAX_SAFE_INTEGER }
const pool = makeWorkPool({ concurrency: 1, queueMax: 0 })
const warm = await sharp({ create: { width: 800, height: 600, channels: 3, background: '#4488cc' } }).jpeg().toBuffer()
await makeRenditions(warm, limits, { pool })
const bytes = readFileSync(process.argv[1])
global.gc?.()
const before = rss()
let peak = before
const timer = setInterval(() => (peak = Math.max(peak, rss())), 10)
let outcome = 'ok'
await makeRenditions(bytes, limits, { pool }).catch((error) => (outcome = error.code ?? error.message))
clearInterval(timer)
peak = Math.max(peak, rss())
console.log(JSON.stringify({ before, peak, outcome }))
`

const files = process.argv[2] === 'files' ? process.argv.slice(3) : []
const side = files.length > 0 ? 0 : Number(process.argv[2] ?? 3000)
const only = files.length > 0 ? [] : process.argv.slice(3)
const rgb = (channels: 3 | 4 = 3) =>
  sharp({
    create: { width: side, height: side, channels, background: channels === 4 ? '#3366cc80' : '#3366cc' },
    limitInputPixels: false,
  })

const made: Record<string, () => Promise<Buffer>> = {
  'jpeg baseline 4:2:0': () => rgb().jpeg().toBuffer(),
  'jpeg baseline 4:4:4': () => rgb().jpeg({ chromaSubsampling: '4:4:4' }).toBuffer(),
  'jpeg progressive 4:2:0': () => rgb().jpeg({ progressive: true }).toBuffer(),
  'jpeg progressive 4:4:4': () => rgb().jpeg({ progressive: true, chromaSubsampling: '4:4:4' }).toBuffer(),
  'jpeg progressive grey': () => rgb().greyscale().jpeg({ progressive: true }).toBuffer(),
  'jpeg progressive cmyk': () =>
    rgb().toColourspace('cmyk').jpeg({ progressive: true, chromaSubsampling: '4:4:4' }).toBuffer(),
  'jpeg baseline cmyk': () => rgb().toColourspace('cmyk').jpeg({ chromaSubsampling: '4:4:4' }).toBuffer(),
  'png rgb': () => rgb().png().toBuffer(),
  'png rgba interlaced': () => rgb(4).png({ progressive: true }).toBuffer(),
  'png rgb16 interlaced': () => rgb().toColourspace('rgb16').png({ progressive: true }).toBuffer(),
  'png rgba plain': () => rgb(4).png().toBuffer(),
  'png rgb16 plain': () => rgb().toColourspace('rgb16').png().toBuffer(),
  'png rgba16': () => rgb(4).toColourspace('rgb16').png().toBuffer(),
  'png palette interlaced': () => rgb().png({ palette: true, colours: 2, progressive: true }).toBuffer(),
  'webp lossy': () => rgb().webp({ quality: 50 }).toBuffer(),
  'webp lossy alpha': () => rgb(4).webp({ quality: 50 }).toBuffer(),
  'webp lossless': () => rgb().webp({ lossless: true }).toBuffer(),
  'png rgba16 tall': () =>
    sharp({ create: { width: 1000, height: 20_000, channels: 4, background: '#3366cc80' }, limitInputPixels: false })
      .toColourspace('rgb16')
      .png()
      .toBuffer(),
  'jpeg baseline tall': () =>
    sharp({ create: { width: 1414, height: 28_284, channels: 3, background: '#3366cc' }, limitInputPixels: false })
      .jpeg()
      .toBuffer(),
  gif: () => rgb().gif().toBuffer(),
  'avif 8-bit 4:4:4': () => rgb().avif({ effort: 0, quality: 30, chromaSubsampling: '4:4:4' }).toBuffer(),
  'avif 8-bit 4:2:0': () => rgb().avif({ effort: 0, quality: 30 }).toBuffer(),
  'avif 8-bit alpha': () => rgb(4).avif({ effort: 0, quality: 30, chromaSubsampling: '4:4:4' }).toBuffer(),
  'avif 12-bit': () => rgb().avif({ effort: 0, quality: 30, chromaSubsampling: '4:4:4', bitdepth: 12 }).toBuffer(),
}

const kinds = files.length > 0 ? Object.fromEntries(files.map((path) => [path, async () => readFileSync(path)])) : made

const folder = mkdtempSync(join(tmpdir(), 'decode-cost-'))
const estimate = await import('../src/images/decode-cost.ts').then((module) => module.decodeCost).catch(() => null)
try {
  for (const [kind, make] of Object.entries(kinds)) {
    if (only.length > 0 && !only.some((word) => kind.includes(word))) continue
    const bytes = await make()
    const file = join(folder, 'image')
    writeFileSync(file, bytes)
    const out = execFileSync(process.execPath, ['--import=tsx', '--input-type=module', '-e', CHILD, file], {
      env: { ...process.env, MALLOC_ARENA_MAX: '2' },
      encoding: 'utf8',
    })
    const { before, peak, outcome } = JSON.parse(out.trim().split('\n').at(-1)!)
    const metadata = await sharp(bytes, { limitInputPixels: false }).metadata()
    const pixels = metadata.width * metadata.height
    const model = estimate ? estimate(metadata) : null
    console.log(
      JSON.stringify({
        kind,
        file: bytes.length,
        outcome,
        peakMiB: Math.round((peak - before) / 1048576),
        bytesPerPixel: Math.round(((peak - before) / pixels) * 100) / 100,
        ...(model === null
          ? {}
          : { modelMiB: Math.round(model / 1048576), modelBytesPerPixel: Math.round((model / pixels) * 100) / 100 }),
      }),
    )
  }
} finally {
  rmSync(folder, { recursive: true, force: true })
}
