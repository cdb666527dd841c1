// `npm start`'s prestart (scripts/build.ts) when several instances start at once from one checkout
// whose dist/ is out of date, and after a build that was killed. Runs against a copy of the project
// in a temp dir, so the checkout's own dist/ (which other tests and starts use) is left alone.
import { execFile, spawnSync } from 'node:child_process'
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'

const project = join(import.meta.dirname, '..', '..')
const root = mkdtempSync(join(tmpdir(), 'blog-build-'))
t.teardown(() => rmSync(root, { recursive: true, force: true }))
for (const path of ['src', 'tsconfig.json', 'tsconfig.build.json', 'package.json', 'scripts/build.ts'])
  cpSync(join(project, path), join(root, path), { recursive: true })
symlinkSync(join(project, 'node_modules'), join(root, 'node_modules'))

/** Runs the build in the copy; resolves with its exit code and what it wrote to stderr. */
const build = () =>
  new Promise<{ code: number | null; stderr: string }>((resolve) => {
    const child = execFile(process.execPath, ['--import=tsx', 'scripts/build.ts'], { cwd: root }, (_, __, stderr) =>
      resolve({ code: child.exitCode, stderr }),
    )
  })

const compiled = (stderr: string) => stderr.includes('build: src/ compiled to dist/')
const leftovers = () => readdirSync(root).filter((entry) => entry.startsWith('dist.'))

t.test('three builds at once: all succeed, one compiles, one whole dist/ and nothing left over', async (t) => {
  const results = await Promise.all([build(), build(), build()])
  const stderr = results.map((result) => result.stderr)
  t.same(
    results.map((result) => result.code),
    [0, 0, 0],
    'all exit 0',
    { stderr },
  )
  t.equal(results.filter((result) => compiled(result.stderr)).length, 1, 'the others found dist/ up to date')
  t.ok(existsSync(join(root, 'dist', 'server.js')), 'dist/ is whole')
  t.same(leftovers(), [], 'no dist.lock, no dist.building-*')
})

t.test("a killed build's lock and staging folder are taken over and removed", async (t) => {
  appendFileSync(join(root, 'src', 'log.ts'), '// changed\n')
  const gone = spawnSync(process.execPath, ['-e', '']).pid
  appendFileSync(join(root, 'dist.lock'), String(gone))
  mkdirSync(join(root, `dist.building-${gone}`, 'http'), { recursive: true })
  const result = await build()
  t.equal(result.code, 0, 'exits 0', { stderr: result.stderr })
  t.match(result.stderr, `taking over dist.lock from process ${gone}, which is gone`)
  t.ok(compiled(result.stderr), 'compiled')
  t.same(leftovers(), [], 'no dist.lock, no dist.building-*')
})
