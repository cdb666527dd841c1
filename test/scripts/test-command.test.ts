// `npm test -- <path>...` (scripts/test.ts): a file runs as given, a folder stands for every
// *.test.ts file under it (tap itself finds none in a folder named as such), a path that is not
// there or holds no test is refused with one line. With no path it is the whole suite, which this
// file does not run.
import { spawnSync } from 'node:child_process'
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

t.test('a folder runs every test file under it', async (t) => {
  const { status, output } = npmTest('test/scripts/sdk-check')
  t.equal(status, 0, output)
  t.match(output, /test\/scripts\/sdk-check\/names\.test\.ts/)
})

t.test('a path that is not there, or holds no test, is refused with one line', async (t) => {
  t.same(npmTest('test/no-such-folder'), {
    status: 2,
    output: 'npm test: test/no-such-folder: no such file or folder\n',
  })
  t.same(npmTest('src/errors'), { status: 2, output: 'npm test: src/errors: no *.test.ts file in this folder\n' })
})
