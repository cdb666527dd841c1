// A throwaway PostgreSQL cluster of the test's own, on its own port, that the test may stop and
// start at will — never the shared server on 5432. Made with Debian's initdb/pg_ctl, which refuse
// to run as root: as root they run as the `postgres` user on a directory that user owns.
import { execFile } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import type { Test } from 'tap'

const run = promisify(execFile)

/** Where the PostgreSQL server binaries are: PG_BIN, else Debian's newest version folder. */
export function postgresBinaries(): string | null {
  if (process.env.PG_BIN) return process.env.PG_BIN
  for (const version of ['17', '16', '15', '14']) {
    const folder = `/usr/lib/postgresql/${version}/bin`
    if (existsSync(join(folder, 'pg_ctl'))) return folder
  }
  return null
}

/**
 * A free port below the kernel's ephemeral range. A port from that range (what `listen(0)` gives)
 * can be taken, while the cluster is down or still being made, by any outgoing connection's local
 * end or by another server listening on port 0 — and tests beside this one make thousands of both.
 */
async function freePort(): Promise<number> {
  const [ephemeralLow] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number)
  const low = 10_000
  const high = Math.max(low + 1000, (ephemeralLow ?? 32_768) - 1)
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = low + Math.floor(Math.random() * (high - low))
    const server = createServer()
    const free = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false))
      server.listen(port, '127.0.0.1', () => resolve(true))
    })
    if (free) {
      await new Promise((resolve) => server.close(resolve))
      return port
    }
  }
  throw new Error('no free port below the ephemeral range')
}

export interface PrivatePostgres {
  /** postgres:// URL of the cluster's `postgres` database. */
  url: string
  stop(): Promise<void>
  start(): Promise<void>
}

export async function startPrivatePostgres(t: Test): Promise<PrivatePostgres> {
  const bin = postgresBinaries()
  if (bin === null) throw new Error('PostgreSQL server binaries not found (install postgresql, or set PG_BIN)')
  const asRoot = process.getuid?.() === 0
  const root = mkdtempSync(join(tmpdir(), 'blog-pg-'))
  if (asRoot)
    chownSync(
      root,
      Number((await run('id', ['-u', 'postgres'])).stdout),
      Number((await run('id', ['-g', 'postgres'])).stdout),
    )
  const pg = (tool: string, args: string[]) =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', join(bin, tool), ...args]) : run(join(bin, tool), args)
  const data = join(root, 'data')
  const port = await freePort()
  await pg('initdb', ['-D', data, '-A', 'trust', '-U', 'blog', '--no-sync'])
  // Loopback only, the socket in our own folder, no fsync: a throwaway cluster.
  const options = `-p ${port} -k ${root} -h 127.0.0.1 -c fsync=off -c full_page_writes=off`
  const cluster: PrivatePostgres = {
    url: `postgres://blog@127.0.0.1:${port}/postgres`,
    start: async () => {
      try {
        await pg('pg_ctl', ['-D', data, '-l', join(root, 'log'), '-o', options, '-w', 'start'])
      } catch (error) {
        // pg_ctl says only that the server did not start: why is in the server's log.
        const log = existsSync(join(root, 'log')) ? readFileSync(join(root, 'log'), 'utf8').slice(-2000) : ''
        throw new Error(`PostgreSQL did not start on port ${port}: ${(error as Error).message}\n${log}`, {
          cause: error,
        })
      }
    },
    // Fast shutdown: open connections are terminated, as when a database server restarts.
    stop: async () => {
      await pg('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop'])
    },
  }
  t.teardown(async () => {
    await cluster.stop().catch(() => {})
    rmSync(root, { recursive: true, force: true })
  })
  await cluster.start()
  return cluster
}
