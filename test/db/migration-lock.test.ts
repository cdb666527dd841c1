// Instances that start together on one PostgreSQL apply each migration exactly once.
import { readdir } from 'node:fs/promises'
import t from 'tap'
import { openDatabase } from '../../src/db/database.ts'
import { applyMigrations } from '../../src/db/migrations.ts'
import { createScratchDatabase } from '../helpers/postgres.ts'

t.test('three instances migrating one fresh database at once', async (t) => {
  const url = await createScratchDatabase(t, 'migration_lock')
  const instances = await Promise.all(
    [1, 2, 3].map(() => openDatabase({ databaseUrl: url, dataDir: null, databasePoolMax: 3, databaseTimeoutMs: 30_000 })),
  )
  t.teardown(() => Promise.all(instances.map((database) => database.close())))
  const results = await Promise.all(
    instances.map((database) => database.withMigrationLock(applyMigrations)),
  )
  const folders = (await readdir(new URL('../../prisma/migrations/', import.meta.url), { withFileTypes: true }))
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
  t.same(results.flatMap((result) => result.applied).sort(), folders, 'each migration applied once, by one of them')
})
