// `npm run build`, and `npm start` before every start (its prestart): compiles src/ to plain
// JavaScript in dist/, which `npm start` runs with node alone. Running src/ through the tsx loader
// costs memory for as long as the process lives (the loader's own thread and the source it keeps):
// see docs/operations.md, "What npm start runs". Compiles only when dist/ is missing or was built from other sources,
// so a start with an up-to-date dist/ only reads and hashes the sources.
//
// Types are not checked here (`tsc --noCheck`), as tsx never checked them: `npm run typecheck`
// does, in CI. TypeScript is a devDependency: where it is not installed (`npm ci --omit=dev`),
// build first, where it is (`npm ci && npm run build`, then prune), and ship dist/.
//
// Several instances started at once from one checkout all run this: one builds while holding
// dist.lock, the others wait for it and then find dist/ up to date.
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import {
  closeSync,
  cpSync,
  existsSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { createRequire } from 'node:module'
import { join, relative } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'

const root = join(import.meta.dirname, '..')
const dist = join(root, 'dist')
const lock = join(root, 'dist.lock')
/** How long to wait for another build: a build takes seconds, several at once on two busy cores longer. */
const LOCK_WAIT_MS = 120_000
/** What dist/ was built from: a hash of every input file's path and content. */
const FINGERPRINT = '.sources'
const INPUTS = ['src', 'tsconfig.json', 'tsconfig.build.json']

function filesUnder(path: string): string[] {
  const entries = readdirSync(path, { withFileTypes: true, recursive: true })
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name))
}

function fingerprint(): string {
  const hash = createHash('sha256')
  const files = INPUTS.flatMap((input) => (input.includes('.') ? [join(root, input)] : filesUnder(join(root, input))))
  for (const file of files.sort())
    hash
      .update(`${relative(root, file)}\0`)
      .update(readFileSync(file))
      .update('\0')
  return hash.digest('hex')
}

function built(): string | null {
  try {
    return readFileSync(join(dist, FINGERPRINT), 'utf8')
  } catch {
    return null
  }
}

/** The pid written in the lock, or null while its holder has created it but not yet written it. */
function lockHolder(): number | null {
  try {
    const pid = Number.parseInt(readFileSync(lock, 'utf8'), 10)
    return Number.isInteger(pid) && pid > 0 ? pid : null
  } catch {
    return null
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** Creates the lock file (exclusively) with our pid in it; waits while a running build holds it. */
async function acquireLock() {
  const deadline = Date.now() + LOCK_WAIT_MS
  let announced = false
  for (;;) {
    try {
      const fd = openSync(lock, 'wx')
      writeFileSync(fd, String(process.pid))
      closeSync(fd)
      return
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
    const holder = lockHolder()
    if (holder !== null && !isRunning(holder)) {
      // Its build was killed (Ctrl-C, a crash): nothing of it is running to finish or clean up.
      console.error(`build: taking over ${relative(root, lock)} from process ${holder}, which is gone`)
      rmSync(lock, { force: true })
      continue
    }
    if (Date.now() > deadline) {
      console.error(`build: ${relative(root, lock)} was held by process ${holder ?? '?'} for ${LOCK_WAIT_MS / 1000} s.`)
      console.error(`If no build is running, remove ${lock} and start again.`)
      process.exit(1)
    }
    if (!announced) console.error(`build: waiting for the build in process ${holder ?? '?'} to finish`)
    announced = true
    await sleep(100)
  }
}

const sources = fingerprint()
if (built() === sources) process.exit(0)

let tsc: string
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
} catch {
  console.error('dist/ is missing or out of date, and TypeScript (a devDependency) is not installed to build it.')
  console.error('Run `npm run build` where devDependencies are installed, and ship dist/ with the rest.')
  process.exit(1)
}

/** Compiles into a staging folder and swaps it in as dist/; only ever run holding the lock. */
function build(): boolean {
  // Staging folders of builds that were killed: none is in use while we hold the lock.
  for (const entry of readdirSync(root)) {
    if (entry.startsWith('dist.building-')) rmSync(join(root, entry), { recursive: true, force: true })
  }
  // Built beside dist/ and swapped in whole: a start never runs half a build, and files removed
  // from src/ do not linger in dist/.
  const staging = `${dist}.building-${process.pid}`
  const started = performance.now()
  const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--noCheck', '--outDir', staging], {
    cwd: root,
    stdio: 'inherit',
  })
  if (result.status !== 0) {
    rmSync(staging, { recursive: true, force: true })
    console.error(`build: tsc failed (exit ${result.status ?? result.signal})`)
    return false
  }
  // Files tsc does not emit but the code loads at run time beside itself (the password worker).
  for (const file of filesUnder(join(root, 'src'))) {
    if (!file.endsWith('.ts')) cpSync(file, join(staging, relative(join(root, 'src'), file)))
  }
  writeFileSync(join(staging, FINGERPRINT), sources)
  rmSync(dist, { recursive: true, force: true })
  renameSync(staging, dist)
  if (!existsSync(join(dist, 'server.js'))) throw new Error('build: dist/server.js was not produced')
  console.error(`build: src/ compiled to dist/ in ${Math.round(performance.now() - started)} ms`)
  return true
}

await acquireLock()
let ok: boolean
try {
  // Another build may have produced this very dist/ while we waited.
  ok = built() === sources || build()
} finally {
  rmSync(lock, { force: true })
}
process.exit(ok ? 0 : 1)
