// The benchmark's media figures (issue 34), on one storage driver at a time:
// - uploadMedia's latency and the server's RSS while 12 uploads run at once, each from an account of
//   its own (a user holds one place in the image work pool at a time), three rounds;
// - getImage's throughput, spread over the renditions those uploads made, against a bare node:http
//   server sending the very bytes our server sent for each (scripts/bench/peers.ts).
// Each account uploads a 2400 × 1600 photo-like JPEG of its own (noise over a gradient: it
// compresses as a photo does, not as a flat colour), made at start: 12 images, 36 renditions.
import { once } from 'node:events'
import { createInterface } from 'node:readline'
import sharp from 'sharp'
import { captureAnswer, startPeer, type FixedAnswer } from './peers.ts'
import { spawnNode } from './server.ts'
import { measure, spread, withRatio, type Figure } from './measure.ts'
import { rssMiB, watchPeakRss } from './memory.ts'

export const UPLOADS_AT_ONCE = 12

/**
 * The service's settings for the media figures: room in the image work queue for the 12 uploads at
 * once (IMAGE_QUEUE_MAX's default, 8, would answer some of them 503), so that every upload is
 * measured; the rest as in production.
 */
export const MEDIA_BENCH_ENV = { IMAGE_QUEUE_MAX: String(UPLOADS_AT_ONCE) }

/** An S3-compatible store (s3rver) in a process of its own (scripts/bench/s3-server.ts), and the settings for it. */
export async function startS3Process() {
  const child = spawnNode(['--import=tsx', 'scripts/bench/s3-server.ts'], {}, ['ignore', 'pipe', 'inherit'])
  const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string]
  return {
    env: JSON.parse(line) as Record<string, string>,
    async stop() {
      if (child.exitCode !== null) return
      const exited = once(child, 'exit')
      child.kill('SIGKILL')
      await exited
    },
  }
}
const ROUNDS = 3

export interface MediaFigures {
  driver: string
  upload: { count: number; statuses: Record<string, number>; p50Ms: number; p99Ms: number; maxMs: number }
  rss: { beforeMiB: number; peakMiB: number }
  /** getImage against the bare peer sending the same bytes, spread over every rendition. */
  getImage: { peer: Figure; ours: Figure; renditions: number; bytesPerImage: number }
}

async function photo(): Promise<Buffer> {
  const width = 2400
  const height = 1600
  const noise = Buffer.alloc(width * height * 3)
  for (let index = 0; index < noise.length; index++) noise[index] = (index % (width * 3)) / 12 + Math.random() * 40
  return sharp(noise, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 85 })
    .toBuffer()
}

async function signUp(baseUrl: string, index: number): Promise<string> {
  const response = await fetch(`${baseUrl}/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      email: `media-${Date.now()}-${index}@example.com`,
      password: 'media-bench-1234',
      name: 'Media',
    }),
  })
  if (response.status !== 201) throw new Error(`register: ${response.status} ${await response.text()}`)
  return ((await response.json()) as { data: { accessToken: string } }).data.accessToken
}

interface Uploaded {
  status: number
  ms: number
  urls: string[]
}

async function upload(baseUrl: string, token: string, image: Buffer): Promise<Uploaded> {
  const form = new FormData()
  form.append('file', new Blob([new Uint8Array(image)], { type: 'image/jpeg' }), 'photo.jpg')
  const started = performance.now()
  const response = await fetch(`${baseUrl}/media`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  })
  const json = (await response.json()) as { data?: { renditions: { url: string }[] } }
  const ms = performance.now() - started
  return { status: response.status, ms, urls: json.data?.renditions.map((rendition) => rendition.url) ?? [] }
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!

export async function measureMedia(options: {
  driver: string
  serverUrl: string
  serverPid: number
  duration: number
  connections: number
}): Promise<MediaFigures> {
  const { serverUrl, serverPid } = options
  const images = await Promise.all(Array.from({ length: UPLOADS_AT_ONCE }, () => photo()))
  const tokens = await Promise.all(Array.from({ length: UPLOADS_AT_ONCE }, (_, index) => signUp(serverUrl, index)))
  const beforeMiB = rssMiB(serverPid)
  const peak = watchPeakRss(serverPid, 50)
  const results: Uploaded[] = []
  for (let round = 0; round < ROUNDS; round++)
    results.push(...(await Promise.all(tokens.map((token, index) => upload(serverUrl, token, images[index]!)))))
  const peakMiB = peak.stop()
  const statuses: Record<string, number> = {}
  for (const result of results) statuses[result.status] = (statuses[result.status] ?? 0) + 1
  const times = results.map((result) => result.ms).sort((a, b) => a - b)

  // Image URLs are absolute paths (or absolute URLs with MEDIA_PUBLIC_BASE_URL, which the bench does not set).
  const paths = [...new Set(results.flatMap((result) => result.urls))]
  const fixed: Record<string, FixedAnswer> = {}
  for (const path of paths) fixed[path] = await captureAnswer(`${serverUrl}${path}`)
  const bytesPerImage = Math.round(
    Object.values(fixed).reduce((sum, answer) => sum + Buffer.from(answer.body, 'base64').length, 0) / paths.length,
  )
  const peer = await startPeer({ fixed })
  try {
    // Each side sends the same sequence of paths, a fresh spread each run.
    const run = (name: string, url: string) =>
      measure(name, {
        url,
        requests: spread(paths).requests,
        connections: options.connections,
        duration: options.duration,
      })
    // The peer first, then ours, each after the same warm-up.
    await run('warm-up', peer.url)
    const peerFigure = await run(`  bare node:http, the same image bytes (${options.driver})`, peer.url)
    await run('warm-up', serverUrl)
    const ours = withRatio(
      await run(`getImage, ${options.driver} storage, ${paths.length} renditions`, serverUrl),
      peerFigure,
    )
    return {
      driver: options.driver,
      upload: {
        count: results.length,
        statuses,
        p50Ms: Math.round(percentile(times, 50)),
        p99Ms: Math.round(percentile(times, 99)),
        maxMs: Math.round(times.at(-1)!),
      },
      rss: { beforeMiB, peakMiB },
      getImage: { peer: peerFigure, ours, renditions: paths.length, bytesPerImage },
    }
  } finally {
    await peer.stop()
  }
}

export const describeMedia = (figures: MediaFigures) =>
  [
    `media (${figures.driver} storage):`,
    `  uploadMedia, ${UPLOADS_AT_ONCE} at once × ${ROUNDS}: p50 ${figures.upload.p50Ms} ms, p99 ${figures.upload.p99Ms} ms, max ${figures.upload.maxMs} ms; answers ${Object.entries(
      figures.upload.statuses,
    )
      .map(([status, count]) => `${count}× ${status}`)
      .join(', ')}`,
    `  server RSS before ${figures.rss.beforeMiB} MiB, peak during the uploads ${figures.rss.peakMiB} MiB`,
    `  getImage ${figures.getImage.ours.requestsPerSecond} req/s (p99 ${figures.getImage.ours.p99Ms} ms) against ${figures.getImage.peer.requestsPerSecond} req/s (p99 ${figures.getImage.peer.p99Ms} ms) bare: ${figures.getImage.ours.ratio!.toFixed(2)}×; ${figures.getImage.renditions} renditions, ${figures.getImage.bytesPerImage} bytes each on average`,
  ].join('\n')
