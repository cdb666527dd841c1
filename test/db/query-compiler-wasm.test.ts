// Prisma's query compiler comes as WebAssembly in a module holding it as one base64 string
// (4.5 MB). The generated client, as scripts/gen.ts rewrites it, requires that module, compiles it
// and drops it from require's cache, so that once the client has run queries the string is gone
// from the heap (imported as an ES module, as Prisma generates it, it stayed for the process's
// life). Checked in the process `npm start` runs (dist/, plain node): under the tsx loader of the
// tests, tsx keeps the module's source itself.
import { spawnSync } from 'node:child_process'
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { loadSpec } from '../../src/spec.ts'
import { usingPostgres } from '../helpers/build.ts'
import { stringsInSnapshot } from '../helpers/heap-snapshot.ts'
import { startServer } from '../helpers/server-process.ts'

const require = createRequire(import.meta.url)
const base64Module = require.resolve('@prisma/client/runtime/query_compiler_fast_bg.postgresql.wasm-base64.js')

/** The module's first bytes, read alone: a slice of the whole text would keep all of it on the heap. */
function firstBytes(path: string, length: number): string {
  const file = openSync(path, 'r')
  try {
    const bytes = Buffer.alloc(length)
    return bytes.toString('latin1', 0, readSync(file, bytes, 0, length, 0))
  } finally {
    closeSync(file)
  }
}
/** The start of the base64 text. */
const base64Start = /"([A-Za-z0-9+/]{200})/.exec(firstBytes(base64Module, 400))![1]!

t.test(
  `the query compiler's base64 text is not held once the client ran (${usingPostgres ? 'PostgreSQL' : 'embedded'})`,
  async (t) => {
    const built = spawnSync(process.execPath, ['--import=tsx', 'scripts/build.ts'], { encoding: 'utf8' })
    t.equal(built.status, 0, `npm run build ${built.stderr}`)
    const snapshots = mkdtempSync(join(tmpdir(), 'blog-wasm-heap-'))
    const server = await startServer(
      {
        DATA_DIR: mkdtempSync(join(tmpdir(), 'blog-wasm-')),
        DATABASE_URL: process.env.DATABASE_URL ?? '',
        JWT_SECRET: 'wasm-test-secret-wasm-test-secret-wasm-0123',
        // As `npm start` runs, without coverage: tap's (`npm test`; @tapjs/processinfo, which
        // follows every child process, starts it in each) makes V8 keep every script's source and
        // feedback for its report, this module's among them. '0' is processinfo's own switch.
        _TAPJS_PROCESSINFO_COVERAGE_: '0',
      },
      [process.execPath, '--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${snapshots}`, 'dist/server.js'],
    )
    t.teardown(() => void server.child.kill('SIGTERM'))
    const registered = await fetch(`${server.url}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: `wasm-${Date.now()}@example.com`, password: 'compiled and let go', name: 'W' }),
    })
    t.equal(registered.status, 201, 'the client ran queries')

    server.child.kill('SIGUSR2')
    // Written by the child's main thread: once the file is there, an answer from the child means it is whole.
    let file: string | undefined
    for (let attempt = 0; attempt < 600 && file === undefined; attempt++) {
      await sleep(100)
      file = readdirSync(snapshots).find((name) => name.endsWith('.heapsnapshot'))
    }
    // Writing the snapshot stops the event loop for a while, which the overload guard then answers
    // 503 for (src/http/limits/overload.ts) until its next sample: asked again until it is over.
    let ping = await fetch(`${server.url}/ping`)
    for (let attempt = 0; attempt < 50 && ping.status === 503; attempt++) {
      await sleep(100)
      ping = await fetch(`${server.url}/ping`)
    }
    t.equal(ping.status, 200, 'the server answers once the snapshot is written')
    t.ok(file !== undefined && existsSync(join(snapshots, file)), 'a heap snapshot of the server')
    const description = (loadSpec() as unknown as { components: { schemas: { ErrorCode: { description: string } } } })
      .components.schemas.ErrorCode.description
    const [base64, source, spec] = stringsInSnapshot(join(snapshots, file!), [
      base64Start,
      `const wasm = "${base64Start}`,
      description.slice(0, 200),
    ])
    t.not(spec, 0, 'the snapshot shows the strings the server holds (a description of the spec)')
    t.equal(base64, 0, 'the base64 string is not held')
    t.equal(source, 0, 'nor the source of the module that spells it')
    server.child.kill('SIGTERM')
    t.equal(await server.exit, 0)
  },
)
