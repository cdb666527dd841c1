// `npm run build`, and `npm start` before every start (its prestart): compiles src/ to plain
// JavaScript in dist/, which `npm start` runs with node alone. Running src/ through the tsx loader
// costs memory for as long as the process lives (the loader's own thread and the source it keeps):
// see README, "Production". Compiles only when dist/ is missing or was built from other sources,
// so a start with an up-to-date dist/ only reads and hashes the sources.
//
// Types are not checked here (`tsc --noCheck`), as tsx never checked them: `npm run typecheck`
// does, in CI. TypeScript is a devDependency: where it is not installed (`npm ci --omit=dev`),
// build first, where it is (`npm ci && npm run build`, then prune), and ship dist/.
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { cpSync, existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join, relative } from 'node:path'

const root = join(import.meta.dirname, '..')
const dist = join(root, 'dist')
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

// Built beside dist/ and swapped in whole: a start never runs half a build, and files removed
// from src/ do not linger in dist/.
const staging = `${dist}.building-${process.pid}`
rmSync(staging, { recursive: true, force: true })
const started = performance.now()
const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--noCheck', '--outDir', staging], {
  cwd: root,
  stdio: 'inherit',
})
if (result.status !== 0) {
  rmSync(staging, { recursive: true, force: true })
  console.error(`build: tsc failed (exit ${result.status ?? result.signal})`)
  process.exit(1)
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
