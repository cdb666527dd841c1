// `npm run test:s3`: the tests of what stores images (thumbnails, media, the storage drivers and
// media:migrate) with every app's new images in an S3-compatible server each test process starts
// (TEST_MEDIA_STORAGE=s3, test/helpers/build.ts: s3rver from the npm registry, in-process). On the
// PostgreSQL DATABASE_URL names, as CI runs it; it refuses to run without one (the sweep's races
// need concurrent transactions, which the embedded database does not have).
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { spawnSync } from 'node:child_process'

/** The folders whose every *.test.ts runs on s3 (test/content/media when it exists), and single files. */
const FOLDERS = ['test/content/thumbnails', 'test/content/media', 'test/storage']
const FILES = ['test/scripts/media-migrate.test.ts']

if (!process.env.DATABASE_URL) {
  console.error('npm run test:s3 runs on PostgreSQL: set DATABASE_URL (e.g. postgres://root@127.0.0.1:5432/test)')
  process.exit(2)
}
const files = [
  ...FOLDERS.filter((folder) => existsSync(folder)).flatMap((folder) =>
    readdirSync(folder, { recursive: true, encoding: 'utf8' })
      .filter((name) => name.endsWith('.test.ts'))
      .map((name) => join(folder, name))
      .sort(),
  ),
  ...FILES,
]
const run = spawnSync('tap', ['--disable-coverage', ...files, ...process.argv.slice(2)], {
  env: { ...process.env, TEST_MEDIA_STORAGE: 's3' },
  stdio: 'inherit',
})
if (run.error) throw run.error // tap not found: run it through npm, which puts node_modules/.bin first
process.exit(run.status ?? 1)
