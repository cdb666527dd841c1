// A throwaway PostgreSQL cluster of the test's own, on its own port, that the test may stop and
// start at will — never the shared server on 5432. Made with Debian's initdb/pg_ctl, which refuse
// to run as root: as root they run as the `postgres` user on a directory that user owns.
import { execFile } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs'
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

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
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
      await pg('pg_ctl', ['-D', data, '-l', join(root, 'log'), '-o', options, '-w', 'start'])
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
