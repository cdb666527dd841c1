// Starts the service as `npm start` does (built to dist/ first, then dist/server.js in a process of
// its own), on a free loopback port, with request logging off so the benchmark measures the
// service, not its logs.
import { spawn, spawnSync, type ChildProcess, type StdioOptions } from 'node:child_process'
import { once } from 'node:events'
import { createServer } from 'node:net'

/**
 * Node as `npm start` runs it (package.json "start"), for the service and for the bench's peers
 * alike, so that a ratio compares code rather than process set-ups: its V8 young generation
 * (docs/operations.md, "Memory"; V8_MAX_SEMI_SPACE_MB sets another) and its allocator settings
 * unless the environment gives others (the same section), under `env`.
 */
export function spawnNode(args: string[], env: Record<string, string>, stdio: StdioOptions): ChildProcess {
  return spawn(process.execPath, [`--max-semi-space-size=${process.env.V8_MAX_SEMI_SPACE_MB || 8}`, ...args], {
    env: { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '1048576', ...process.env, ...env },
    stdio,
  })
}

export interface RunningServer {
  url: string
  child: ChildProcess
  stop(): Promise<void>
}

async function freePort(): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1')
  await once(probe, 'listening')
  const { port } = probe.address() as { port: number }
  probe.close()
  await once(probe, 'close')
  return port
}

async function waitUntilUp(url: string, child: ChildProcess, stderr: () => string) {
  for (let attempt = 0; attempt < 600; attempt++) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}: ${stderr()}`)
    try {
      if ((await fetch(`${url}/ping`)).ok) return
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  throw new Error('the server did not answer /ping within 2 minutes')
}

/** `npm run build`: compiles src/ to dist/ unless it is current (npm start's prestart). */
function build() {
  const result = spawnSync(process.execPath, ['--import=tsx', 'scripts/build.ts'], { stdio: 'inherit' })
  if (result.status !== 0) throw new Error(`npm run build failed (${result.status ?? result.signal})`)
}

/** `nodeArgs` go before the script: Node's own options (a CPU profile, for one). */
export async function startServer(env: Record<string, string>, nodeArgs: string[] = []): Promise<RunningServer> {
  build()
  const port = await freePort()
  const serverEnv = { HOST: '127.0.0.1', PORT: String(port), INTERNAL_PORT: '0', LOG_LEVEL: 'warn', ...env }
  const child = spawnNode([...nodeArgs, 'dist/server.js'], serverEnv, ['ignore', 'inherit', 'pipe'])
  let stderr = ''
  child.stderr!.on('data', (chunk) => (stderr += chunk))
  const url = `http://127.0.0.1:${port}`
  await waitUntilUp(url, child, () => stderr)
  return {
    url,
    child,
    async stop() {
      if (child.exitCode !== null) return
      const exited = once(child, 'exit')
      child.kill('SIGTERM')
      await exited
    },
  }
}
