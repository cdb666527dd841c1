// Hostile thumbnail uploads against a running server, and what they cost it: the server's peak
// RSS (VmHWM, from /proc) and /ping's latency while they run. Each upload comes from a user of
// its own, as an attack through open registration would.
import { readFileSync } from 'node:fs'
import { Worker } from 'node:worker_threads'
import sharp from 'sharp'
import type { HostileUpload } from './hostile-images.ts'

export interface HostileUploadFigures {
  uploads: number
  /** How the uploads were answered: status → count ('error' for a dropped connection). */
  statuses: Record<string, number>
  pings: number
  pingP50Ms: number
  pingP99Ms: number
  pingMaxMs: number
  /** The server's resident memory before the uploads and its highest sample (every 50 ms) while they ran, in MB (Linux only, else null). */
  rssBeforeMb: number | null
  peakRssMb: number | null
  seconds: number
}

async function call(url: string, method: string, body: unknown, token?: string) {
  const response = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  })
  const json = (await response.json()) as { data: Record<string, unknown> }
  if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${JSON.stringify(json)}`)
  return json.data
}

/** A user of its own and a post of theirs, per upload. */
async function prepare(baseUrl: string, count: number) {
  const targets: { token: string; postId: string }[] = []
  for (let index = 0; index < count; index++) {
    const email = `hostile-${Date.now()}-${index}@example.com`
    const registered = await call(`${baseUrl}/register`, 'POST', {
      email,
      password: 'hostile-password-1234',
      name: 'Hostile',
    })
    const token = registered.accessToken as string
    const post = await call(`${baseUrl}/posts`, 'POST', { title: `Target ${index}`, body: 'Text.' }, token)
    targets.push({ token, postId: post.id as string })
  }
  return targets
}

function upload(baseUrl: string, target: { token: string; postId: string }, image: HostileUpload) {
  const form = new FormData()
  form.append('file', new Blob([image.bytes], { type: 'image/png' }), 'image.png')
  return fetch(`${baseUrl}/posts/${target.postId}/thumbnail`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${target.token}` },
    body: form,
  })
    .then(async (response) => {
      await response.arrayBuffer()
      return String(response.status)
    })
    .catch(() => 'error')
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0

function rssMb(pid: number | undefined): number | null {
  if (pid === undefined) return null
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]
    return kb === undefined ? null : Math.round(Number(kb) / 1024)
  } catch {
    return null
  }
}

/**
 * Sends /ping one request after another, 10 ms apart, from a worker thread (so that the uploads'
 * own work in this process, encoding forms and reading answers, does not count as the server's
 * latency), from when the returned promise resolves until `stop()`; `stop()` gives each latency in ms.
 */
export async function startPinging(baseUrl: string): Promise<{ stop(): Promise<number[]> }> {
  const worker = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads')
    let going = true
    parentPort.on('message', () => (going = false))
    ;(async () => {
      // The first fetch of a thread loads its HTTP client: not the server's time.
      await fetch(workerData + '/ping').then((response) => response.arrayBuffer())
      parentPort.postMessage('ready')
      const latencies = []
      while (going) {
        const sent = performance.now()
        await fetch(workerData + '/ping').then((response) => response.arrayBuffer())
        latencies.push(performance.now() - sent)
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
      parentPort.postMessage(latencies)
    })()`,
    { eval: true, workerData: baseUrl },
  )
  const messages: unknown[] = []
  const waiters: ((message: unknown) => void)[] = []
  worker.on('message', (message) => (waiters.length > 0 ? waiters.shift()!(message) : messages.push(message)))
  const next = () =>
    messages.length > 0 ? Promise.resolve(messages.shift()) : new Promise<unknown>((resolve) => waiters.push(resolve))
  await next()
  return {
    async stop() {
      worker.postMessage('stop')
      const latencies = (await next()) as number[]
      await worker.terminate()
      return latencies
    },
  }
}

export const p99 = (latencies: number[]) =>
  Math.round(
    percentile(
      [...latencies].sort((a, b) => a - b),
      99,
    ),
  )

/** Sends every upload at once, pings /ping one after another meanwhile, and reports. */
export async function runHostileUploads(
  baseUrl: string,
  serverPid: number | undefined,
  images: HostileUpload[],
): Promise<HostileUploadFigures> {
  const targets = await prepare(baseUrl, images.length + 1)
  // One ordinary photo first: the first image a process decodes loads libvips's codecs, once.
  const photo = {
    name: 'warm-up',
    bytes: await sharp({ create: { width: 800, height: 600, channels: 3, background: '#4488cc' } })
      .jpeg()
      .toBuffer(),
  }
  await upload(baseUrl, targets.pop()!, photo)
  const rssBeforeMb = rssMb(serverPid)
  let peakRssMb = rssBeforeMb
  // The start-up (PGlite, migrations) has a peak of its own: the process's high-water mark would show it.
  const sampler = setInterval(() => {
    const now = rssMb(serverPid)
    if (now !== null && (peakRssMb === null || now > peakRssMb)) peakRssMb = now
  }, 50)
  const pinging = await startPinging(baseUrl)
  const started = Date.now()
  const answers = await Promise.all(images.map((image, index) => upload(baseUrl, targets[index]!, image)))
  const seconds = Math.round((Date.now() - started) / 100) / 10
  const latencies = await pinging.stop()
  clearInterval(sampler)
  const statuses: Record<string, number> = {}
  for (const status of answers) statuses[status] = (statuses[status] ?? 0) + 1
  const sorted = [...latencies].sort((a, b) => a - b)
  return {
    uploads: images.length,
    statuses,
    pings: sorted.length,
    pingP50Ms: Math.round(percentile(sorted, 50)),
    pingP99Ms: Math.round(percentile(sorted, 99)),
    pingMaxMs: Math.round(sorted.at(-1) ?? 0),
    rssBeforeMb,
    peakRssMb,
    seconds,
  }
}
