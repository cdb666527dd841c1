// `npm run bench`'s proof of its own fairness (scripts/bench/equal-work.ts) on a short bench: a
// small seed, figures of a second, on a scratch PostgreSQL database. Both sides answer every path
// of a figure alike, bytes and framing included; a cached figure runs no query of posts, an
// uncached one at least one a request; and a burst of one URL with the caches off runs fewer
// queries than requests, which is why uncached figures spread their requests.
import t from 'tap'
import { scratchPostgres } from '../../scripts/bench/database.ts'
import { answerDifferences, makeEqualWork } from '../../scripts/bench/equal-work.ts'
import { startPeer } from '../../scripts/bench/peers.ts'
import { cachedSpecs, readPaths, startBytesPeer, uncachedSpecs } from '../../scripts/bench/read-figures.ts'
import { BENCH_ADMIN, seed } from '../../scripts/bench/seed.ts'
import { startServer } from '../../scripts/bench/server.ts'
import { openSqlCounter } from '../../scripts/bench/sql-count.ts'

const CONNECTIONS = 4
const POOL_MAX = 4
const short = { duration: 1, warmSeconds: 0.5, connections: CONNECTIONS }

t.test('the bench compares equal work, and shows it did', async (t) => {
  const database = await scratchPostgres(process.env.TEST_POSTGRES_URL ?? 'postgres://root@127.0.0.1:5432/postgres')
  t.teardown(() => database.drop())
  const env = { ...database.env, ...BENCH_ADMIN, BCRYPT_COST: '4', DATABASE_POOL_MAX: String(POOL_MAX) }
  const cached = await startServer(env)
  const seeded = await seed(cached.url, 16)
  const paths = await readPaths(cached.url, seeded, 2 * CONNECTIONS)
  const bytesPeer = await startBytesPeer(cached.url, paths)
  t.teardown(() => bytesPeer.stop())

  await t.test('cached figures, against the bytes peer', async (t) => {
    const specs = cachedSpecs(paths, CONNECTIONS)
    const peer = { url: bytesPeer.url, answers: 'bytes' as const }
    for (const spec of Object.values(specs).filter((spec) => spec !== specs.bySlug))
      t.same(await answerDifferences(peer, cached.url, spec.paths), [], `${spec.name}: the same bytes and framing`)
    const counter = await openSqlCounter(database.env.DATABASE_URL!, POOL_MAX)
    t.teardown(() => counter.close())
    const equal = makeEqualWork({ ...short, counter })
    const { fairness } = await equal.compare(specs.first, cached.url, { peer })
    t.same(fairness.problems, [], 'cached first pages: fair')
    t.equal(fairness.sql?.postsReads, 0, 'no read of posts')
    t.ok(fairness.sql!.requests > 100, `over ${fairness.sql!.requests} requests`)
  })
  await cached.stop()

  // The peer reads a copy: the original's statistics count the service alone.
  const copy = await database.copy!()
  const [pgPeer, uncached] = await Promise.all([
    startPeer({ databaseUrl: copy, poolMax: POOL_MAX }),
    startServer({ ...env, POST_CACHE_MAX_ENTRIES: '0' }),
  ])
  t.teardown(() => Promise.all([pgPeer.stop(), uncached.stop()]))

  await t.test('uncached figures, against the node:http + pg peer', async (t) => {
    const specs = uncachedSpecs(paths, CONNECTIONS)
    const peer = { url: pgPeer.url, answers: 'data' as const }
    for (const spec of [specs.post, specs.first, specs.cursor, specs.category])
      t.same(await answerDifferences(peer, uncached.url, spec.paths), [], `${spec.name}: the same data and framing`)
    const counter = await openSqlCounter(database.env.DATABASE_URL!, POOL_MAX)
    t.teardown(() => counter.close())
    const equal = makeEqualWork({ ...short, counter })
    const first = await equal.compare(specs.first, uncached.url, { peer })
    t.same(first.fairness.problems, [], 'spread first pages: fair')
    t.ok(first.fairness.loadsPerRequest! >= 0.9, `${first.fairness.loadsPerRequest} loads a request`)
    // The old figure: one URL from every connection, the cache off. Concurrent reads share one load.
    const merged = await equal.compare({ ...specs.firstMerged, work: 'uncached' }, uncached.url, {
      baseline: first.ours,
    })
    t.ok(merged.fairness.loadsPerRequest! < 0.9, `one URL: ${merged.fairness.loadsPerRequest} loads a request`)
    t.match(merged.fairness.problems, [/^uncached, yet \d+ reads of posts for \d+ requests/], 'not equal work')
  })
})
