// `npm test -- <path>...` (scripts/test.ts): a file runs as given, a folder stands for every
// *.test.ts file under it (tap itself finds none in a folder named as such), a path that is not
// there or holds no test is refused with one line. With no path it is the whole suite. Nothing
// here starts tap: a tap run inside the suite's would empty its .tap/coverage.
import { spawnSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))

function npmTest(...args: string[]) {
  const run = spawnSync(process.execPath, ['--import=tsx', 'scripts/test.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, INIT_CWD: ROOT, PATH: `${join(ROOT, 'node_modules/.bin')}:${process.env.PATH ?? ''}` },
    encoding: 'utf8',
  })
  return { status: run.status, output: `${run.stdout}${run.stderr}` }
}

t.test('a folder stands for every test file under it, a file for itself', async (t) => {
  // --list, not a run: a tap started here would empty the .tap/coverage of the run this file is in.
  t.same(npmTest('--list', 'test/scripts/sdk-check'), { status: 0, output: 'test/scripts/sdk-check/names.test.ts\n' })
  const { status, output } = npmTest('--list', 'test/structure', 'test/config.test.ts')
  t.equal(status, 0, output)
  // The folder as it is today, read here (a file added there must not fail this test), in order.
  const structure = readdirSync(join(ROOT, 'test/structure'))
    .filter((name) => name.endsWith('.test.ts'))
    .sort()
    .map((name) => `test/structure/${name}`)
  t.ok(structure.length >= 5, 'the structure tests are there to list')
  t.same(output.trim().split('\n'), [...structure, 'test/config.test.ts'])
})

t.test('a path that is not there, or holds no test, is refused with one line', async (t) => {
  t.same(npmTest('test/no-such-folder'), {
    status: 2,
    output: 'npm test: test/no-such-folder: no such file or folder\n',
  })
  t.same(npmTest('src/errors'), { status: 2, output: 'npm test: src/errors: no *.test.ts file in this folder\n' })
})
