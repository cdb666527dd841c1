// Runs `src/server.ts` as its own process, the way `npm start` does, for tests of start-up and shutdown.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { once } from 'node:events'
import { createInterface } from 'node:readline'

export interface ServerProcess {
  child: ChildProcessWithoutNullStreams
  url: string
  /** The internal listener's (probes, metrics, docs). */
  internalUrl: string
  /** Every log line so far, parsed. */
  logs: Record<string, unknown>[]
  /** Every line of standard output so far, log or not (V8's --trace-gc writes there too). */
  lines: string[]
  exit: Promise<number | null>
}

/** `command` is how the process is started: by default node itself, as `npm start` ends up doing. */
export async function startServer(
  env: Record<string, string | undefined>,
  command = [process.execPath, '--import=tsx', 'src/server.ts'],
): Promise<ServerProcess> {
  const child = spawn(command[0]!, command.slice(1), {
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: '0',
      INTERNAL_PORT: '0',
      LOG_LEVEL: 'info',
      // As in build.ts: every test request comes from 127.0.0.1, and on a shared PostgreSQL the
      // address counters of every other test file are still running when this process starts.
      REGISTER_LIMIT_PER_ADDRESS: '1000000',
      LOGIN_LIMIT_PER_ADDRESS: '1000000',
      ...env,
    },
  })
  const logs: Record<string, unknown>[] = []
  const lines: string[] = []
  let stderr = ''
  child.stderr.on('data', (chunk) => (stderr += chunk))
  const exit = once(child, 'exit').then(([code]) => code as number | null)
  // Both listeners are up once the internal one says so: it starts after the public port.
  const [url, internalUrl] = await new Promise<[string, string]>((resolve, reject) => {
    let url: string | undefined
    createInterface({ input: child.stdout }).on('line', (line) => {
      lines.push(line)
      try {
        const entry = JSON.parse(line) as Record<string, unknown>
        logs.push(entry)
        const listening = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(String(entry.msg))
        if (listening) url = listening[1]!
        const internal = /^Internal listener .* at (http:\/\/[^ ]+)$/.exec(String(entry.msg))
        if (internal && url !== undefined) resolve([url, internal[1]!])
      } catch {
        // not a log line
      }
    })
    void exit.then((code) => reject(new Error(`server exited with ${code} before listening: ${stderr}`)))
  })
  return { child, url, internalUrl, logs, lines, exit }
}
