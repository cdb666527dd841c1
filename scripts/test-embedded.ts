// `npm run test:embedded`: the files scripts/embedded-run.ts lists, on the embedded database
// (PGlite: no DATABASE_URL), through tap.
import { spawnSync } from 'node:child_process'
import { EMBEDDED_RUN } from './embedded-run.ts'

const env = { ...process.env }
delete env.DATABASE_URL
// Coverage is measured and held to its floors by the whole run (`npm test`); a part of the suite
// would fall under them.
const run = spawnSync('tap', ['--disable-coverage', ...Object.values(EMBEDDED_RUN).flat(), ...process.argv.slice(2)], {
  env,
  stdio: 'inherit',
})
if (run.error) throw run.error // tap not found: run it through npm, which puts node_modules/.bin first
process.exit(run.status ?? 1)
