// Twelve hostile thumbnail uploads at once against a fresh server on the embedded database (or
// DATABASE_URL's server, in a scratch database): the server's peak RSS and /ping's p99 meanwhile.
//   npx node --import=tsx scripts/bench-hostile-uploads.ts [count] [kind: mix|thin|deep|flat|worst]
//   npx node --import=tsx scripts/bench-hostile-uploads.ts [count] files <image…>
// `mix` is the set (thin, 16-bit, large flat); `worst` the costliest images the default
// limits accept: 40 megapixels of 8-bit RGB and 16-bit RGB just under 160 MB decoded, in turn;
// `files` the images given, in turn (e.g. progressive JPEGs, interlaced PNGs, GIFs and AVIFs of
// 6324 × 6324, which need far more memory than their pixels: make them with sharp).
import { readFileSync } from 'node:fs'
import { basename } from 'node:path'
import { scratchDatabase } from './bench/database.ts'
import { deepPng, flatPng, hostileUploads, thinPng, type HostileUpload } from './bench/hostile-images.ts'
import { p99, runHostileUploads, startPinging } from './bench/hostile-uploads.ts'
import { BENCH_WRITE_BUDGET } from './bench/seed.ts'
import { startServer } from './bench/server.ts'

const count = Number(process.argv[2] ?? 12)
const kind = process.argv[3] ?? 'mix'

async function images(): Promise<HostileUpload[]> {
  if (kind === 'mix') return hostileUploads(count)
  if (kind === 'files') {
    const given = process.argv.slice(4).map((path) => ({ name: basename(path), bytes: readFileSync(path) }))
    return Array.from({ length: count }, (_, index) => given[index % given.length]!)
  }
  if (kind === 'worst') {
    const both = [
      { name: 'flat 40 MP', bytes: await flatPng(8000, 5000) },
      { name: '16-bit 5100×5100', bytes: await deepPng(5100, 5100) },
    ]
    return Array.from({ length: count }, (_, index) => both[index % 2]!)
  }
  const one: HostileUpload =
    kind === 'thin'
      ? { name: 'thin', bytes: thinPng(40_000_000) }
      : kind === 'deep'
        ? { name: 'deep', bytes: await deepPng(8000, 5000) }
        : { name: 'flat', bytes: await flatPng(8000, 5000) }
  return Array.from({ length: count }, () => one)
}

const uploads = await images()
const database = await scratchDatabase(process.env.DATABASE_URL)
// Limits that would refuse the set-up (a user per upload, from one address) out of the way.
const server = await startServer({
  ...database.env,
  REGISTER_LIMIT_PER_ADDRESS: '1000000',
  EVENT_LOOP_MAX_DELAY_MS: '0',
  ...BENCH_WRITE_BUDGET,
})
try {
  const idle = await startPinging(server.url)
  await new Promise((resolve) => setTimeout(resolve, 5000))
  const idlePingP99Ms = p99(await idle.stop())
  const figures = await runHostileUploads(server.url, server.child.pid, uploads)
  console.log(JSON.stringify({ database: database.kind, kind, idlePingP99Ms, ...figures }, null, 2))
} finally {
  await server.stop()
  await database.drop()
}
