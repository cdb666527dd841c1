// On PostgreSQL the embedded database's code is never loaded: PGlite and its adapter are imported
// only when the embedded database is opened (src/db/database.ts), so they take no memory there.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { register } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { createScratchDatabase } from '../helpers/postgres.ts'

// Registered before the app is imported (dynamically, below): static imports would be resolved
// before this line runs.
const directory = mkdtempSync(join(tmpdir(), 'resolve-log-'))
t.teardown(() => rmSync(directory, { recursive: true, force: true }))
const log = join(directory, 'resolved.txt')
register('./resolve-log-hook.mjs', import.meta.url, { data: { log } })
const resolved = () => readFileSync(log, 'utf8').split('\n')
const embeddedCode = (urls: string[]) =>
  urls.filter((url) => /\/(@electric-sql\/pglite|pglite-prisma-adapter)\//.test(url))

t.test('an app on PostgreSQL starts and serves without loading PGlite; an embedded one loads it', async (t) => {
  const { build } = await import('../helpers/build.ts')
  const url = await createScratchDatabase(t, 'lazy_pglite')
  const app = await build(t, { DATABASE_URL: url })
  t.equal((await app.inject({ method: 'GET', url: '/posts?limit=1' })).statusCode, 200)
  t.ok(
    resolved().some((url) => url.endsWith('/src/db/database.ts')),
    'the hook saw the app being loaded',
  )
  t.same(embeddedCode(resolved()), [], 'neither @electric-sql/pglite nor pglite-prisma-adapter was loaded')

  // The same hook sees them when they are used: the check above cannot pass for want of seeing.
  const embedded = await build(t, { DATABASE_URL: '' })
  t.equal((await embedded.inject({ method: 'GET', url: '/posts?limit=1' })).statusCode, 200)
  t.not(embeddedCode(resolved()).length, 0, 'the embedded database loaded them')
})
