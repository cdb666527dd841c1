// The embedded run (scripts/embedded-run.ts) names its files by path: a file renamed or removed
// would silently drop out of it. Each named file must exist, be named once, and choose its database
// by DATABASE_URL (through test/helpers/build.ts or a server process); otherwise it does the same
// work on both runs and belongs only to the whole one.
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { EMBEDDED_RUN } from '../../scripts/embedded-run.ts'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const files = Object.values(EMBEDDED_RUN).flat()

t.same(
  files.filter((file, index) => files.indexOf(file) !== index),
  [],
  'no file is named twice',
)
for (const file of files) {
  t.test(file, async (t) => {
    t.match(file, /^test\/.+\.test\.ts$/, 'a test file of the suite')
    t.ok(existsSync(join(ROOT, file)), 'exists')
    const source = existsSync(join(ROOT, file)) ? readFileSync(join(ROOT, file), 'utf8') : ''
    t.match(
      source,
      /helpers\/(build|client|server-process)\.ts|DATABASE_URL|usingPostgres/,
      'runs on the database DATABASE_URL chooses',
    )
  })
}
