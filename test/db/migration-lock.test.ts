// Instances that start together on one PostgreSQL apply each migration exactly once and set up
// their job queues one at a time.
import { readdir } from 'node:fs/promises'
import t from 'tap'
import { openDatabase } from '../../src/db/database.ts'
import { applyMigrations } from '../../src/db/migrations.ts'
import { build } from '../helpers/build.ts'
import { createScratchDatabase } from '../helpers/postgres.ts'

t.test('three instances migrating one fresh database at once', async (t) => {
  const url = await createScratchDatabase(t, 'migration_lock')
  const instances = await Promise.all(
    [1, 2, 3].map(() =>
      openDatabase({ databaseUrl: url, dataDir: null, databasePoolMax: 3, databaseTimeoutMs: 30_000 }),
    ),
  )
  t.teardown(() => Promise.all(instances.map((database) => database.close())))
  const results = await Promise.all(instances.map((database) => database.withMigrationLock(applyMigrations)))
  const folders = (await readdir(new URL('../../prisma/migrations/', import.meta.url), { withFileTypes: true }))
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
  t.same(results.flatMap((result) => result.applied).sort(), folders, 'each migration applied once, by one of them')
})

t.test('three apps starting together on one fresh database all start, with their job queues', async (t) => {
  const url = await createScratchDatabase(t, 'startup_lock')
  // Without the start-up lock, pg-boss's queue creation raced between instances and deadlocked.
  const apps = await Promise.all([1, 2, 3].map(() => build(t, { DATABASE_URL: url })))
  for (const app of apps) t.equal((await app.inject({ method: 'GET', url: '/health' })).statusCode, 200)
  const queues = (await apps[0]!.services.queue.boss.getQueues()).map((queue) => queue.name)
  // pg-boss keeps queues of its own (the scheduler's `__pgboss__send-it`) beside ours.
  t.same(queues.filter((name) => !name.startsWith('__pgboss__')).sort(), [
    'account-email',
    'clean-up-accounts',
    'clean-up-webhooks',
    'deliver-webhook',
    'publish-post',
    'render-posts',
    'sweep-bucket',
    'sweep-images',
    'welcome-email',
  ])
})
