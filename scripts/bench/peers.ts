// Starts the bare peers (scripts/bench/peer-server.ts) and captures the answers they replay.
import { once } from 'node:events'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { get } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { spawnNode } from './server.ts'

export interface FixedAnswer {
  status: number
  headers: Record<string, string>
  /** base64 */
  body: string
}

/** Headers node:http writes for itself on every answer: the peer's own server sets them. */
const PER_CONNECTION = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding'])

/** What our server answers to GET `url`, to the byte: status, headers and body. */
export function captureAnswer(url: string): Promise<FixedAnswer> {
  return new Promise((resolve, reject) => {
    get(url, (response) => {
      const chunks: Buffer[] = []
      response.on('data', (chunk: Buffer) => chunks.push(chunk))
      response.on('end', () => {
        const headers = Object.fromEntries(
          Object.entries(response.headers)
            .filter(([name]) => !PER_CONNECTION.has(name))
            .map(([name, value]) => [name, String(value)]),
        )
        resolve({ status: response.statusCode!, headers, body: Buffer.concat(chunks).toString('base64') })
      })
    }).on('error', reject)
  })
}

export interface Peer {
  url: string
  pid: number
  stop(): Promise<void>
}

export async function startPeer(options: {
  fixed?: Record<string, FixedAnswer>
  databaseUrl?: string
  poolMax?: number
}): Promise<Peer> {
  // In a file: the answers of a whole spread of pages are larger than an environment variable may be.
  const folder = mkdtempSync(join(tmpdir(), 'blog-bench-peer-'))
  const fixedFile = join(folder, 'fixed.json')
  writeFileSync(fixedFile, JSON.stringify(options.fixed ?? {}))
  return startPeerProcess(
    'scripts/bench/peer-server.ts',
    {
      PEER_FIXED_FILE: fixedFile,
      ...(options.databaseUrl ? { PEER_DATABASE_URL: options.databaseUrl } : {}),
      PEER_POOL_MAX: String(options.poolMax ?? 10),
    },
    () => rmSync(folder, { recursive: true, force: true }),
  )
}

/**
 * Starts a peer `script` that prints `{"port": N}` once listening, with the server's node flags and
 * allocator settings, through tsx (whose loader costs only at start-up); `cleanup` runs at its stop.
 */
export async function startPeerProcess(script: string, env: Record<string, string>, cleanup = () => {}): Promise<Peer> {
  const child = spawnNode(['--import=tsx', script], env, ['ignore', 'pipe', 'inherit'])
  const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string]
  const { port } = JSON.parse(line) as { port: number }
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    async stop() {
      cleanup()
      if (child.exitCode !== null) return
      const exited = once(child, 'exit')
      child.kill('SIGKILL')
      await exited
    },
  }
}
