// `npm run bench`'s proof of its own fairness (scripts/bench/equal-work.ts) on a short bench: a
// small seed, figures of four passes over their paths, on a scratch PostgreSQL database, every read
// figure of the bench made by the bench's own code (scripts/bench/read-figures.ts). Each must pass
// its checks: both sides answer every path alike, bytes and framing included; a cached figure reads
// no table (a cached list page or feed: the lists' generation, at most once a request, shared by
// requests arriving together); an uncached one
// loads posts once a request; a burst of one URL with the caches off fewer times. And the checks
// must catch what they claim to: a peer framing its answers otherwise, a peer altering one field,
// and a burst of one URL passed off as uncached work are each reported.
import { once } from 'node:events'
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import { answerDifferences, answerOf, type Answer } from '../../scripts/bench/answers.ts'
import { scratchPostgres } from '../../scripts/bench/database.ts'
import { makeEqualWork, PER_REQUEST_BAND, readProblems, type Compared } from '../../scripts/bench/equal-work.ts'
import type { Figure } from '../../scripts/bench/measure.ts'
import { startPeer } from '../../scripts/bench/peers.ts'
import {
  cachedFigures,
  cachedSpecs,
  readPaths,
  startBytesPeer,
  uncachedFigures,
  uncachedSpecs,
} from '../../scripts/bench/read-figures.ts'
import { BENCH_ADMIN, seed } from '../../scripts/bench/seed.ts'
import { startServer } from '../../scripts/bench/server.ts'
import { openSqlCounter } from '../../scripts/bench/sql-count.ts'

const CONNECTIONS = 4
const POOL_MAX = 4
// Figures of whole passes over their paths, not of a duration: what is counted does not depend on
// how fast the machine is.
const short = { duration: 0, passes: 4, warmSeconds: 0.1, connections: CONNECTIONS }

/** Each figure passed its checks, with reads counted, over at least two passes of its paths. */
function allFair(t: Test, figures: Compared[]) {
  for (const { ours, fairness } of figures) {
    t.same(fairness.problems, [], `${fairness.figure}: fair`)
    t.ok(fairness.sql, `${fairness.figure}: reads counted`)
    t.ok(
      ours.sent! >= 2 * fairness.answers.paths,
      `${fairness.figure}: each of its ${fairness.answers.paths} paths asked at least twice (${ours.sent} requests)`,
    )
  }
}

/** Headers of the message's framing, which node:http writes for itself. */
const FRAMING = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'date'])
const unframed = (answer: Answer) =>
  Object.fromEntries(Object.entries(answer.headers).filter(([name]) => !FRAMING.has(name)))

/** A node:http server answering each path with what `upstream` answers to it, passed through `answer`. */
async function relay(upstream: string, answer: (from: Answer, response: ServerResponse) => void) {
  const server = createServer((request, response) => {
    answerOf(`${upstream}${request.url}`).then(
      (from) => answer(from, response),
      (error: Error) => response.destroy(error),
    )
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close() {
      server.closeAllConnections()
      server.close()
    },
  }
}

t.test('the bench compares equal work, and shows it did', async (t) => {
  const database = await scratchPostgres(process.env.TEST_POSTGRES_URL ?? 'postgres://root@127.0.0.1:5432/postgres')
  t.teardown(() => database.drop())
  const env = { ...database.env, ...BENCH_ADMIN, BCRYPT_COST: '4', DATABASE_POOL_MAX: String(POOL_MAX) }
  const cached = await startServer(env)
  const seeded = await seed(cached.url, 16)
  const paths = await readPaths(cached.url, seeded, 2 * CONNECTIONS)
  const bytesPeer = await startBytesPeer(cached.url, paths)
  t.teardown(() => bytesPeer.stop())

  let cachedFeed: Figure | undefined
  await t.test('every cached figure, against the bytes peer', async (t) => {
    const counter = await openSqlCounter(database.env.DATABASE_URL!, POOL_MAX)
    t.teardown(() => counter.close())
    const equal = makeEqualWork({ ...short, counter })
    const figures = await cachedFigures(equal, cached.url, bytesPeer, paths, CONNECTIONS)
    t.equal(equal.fairness.length, Object.keys(cachedSpecs(paths, CONNECTIONS)).length, 'all of them')
    allFair(t, Object.values(figures))
    cachedFeed = figures.feed.ours
  })

  await t.test('the answer checks report a peer that differs', async (t) => {
    const probe = [paths.posts[0]!, paths.posts[1]!, paths.firstPages[0]!]
    // The same bytes, chunked.
    const chunked = await relay(cached.url, (from, response) => {
      response.writeHead(from.status, unframed(from))
      response.write(from.body)
      response.end()
    })
    t.teardown(() => chunked.close())
    t.same(
      await answerDifferences({ url: chunked.url, answers: 'bytes' }, cached.url, probe),
      probe.map((path) => `${path}: framing transfer-encoding chunked against ours content-length`),
      'chunked, against content-length',
    )
    // The same answer, framed alike, but for one field: a post's title.
    const altered = await relay(cached.url, (from, response) => {
      const envelope = JSON.parse(from.body.toString('utf8')) as { data: { title: string } | { title: string }[] }
      const post = Array.isArray(envelope.data) ? envelope.data[0]! : envelope.data
      post.title += ' (altered)'
      const body = Buffer.from(JSON.stringify(envelope))
      response.writeHead(from.status, { ...unframed(from), 'content-length': body.length })
      response.end(body)
    })
    t.teardown(() => altered.close())
    t.same(
      await answerDifferences({ url: altered.url, answers: 'data' }, cached.url, probe),
      probe.map((path) => `${path}: other data`),
      'one field altered',
    )
  })
  await cached.stop()

  // The peer reads a copy: the original's statistics count the service alone.
  const copy = await database.copy!()
  const [pgPeer, uncached] = await Promise.all([
    startPeer({ databaseUrl: copy, poolMax: POOL_MAX }),
    startServer({ ...env, POST_CACHE_MAX_ENTRIES: '0' }),
  ])
  t.teardown(() => Promise.all([pgPeer.stop(), uncached.stop()]))

  await t.test('every uncached figure, against the node:http + pg peer', async (t) => {
    const counter = await openSqlCounter(database.env.DATABASE_URL!, POOL_MAX)
    t.teardown(() => counter.close())
    const equal = makeEqualWork({ ...short, counter })
    const figures = await uncachedFigures(equal, uncached.url, pgPeer, paths, CONNECTIONS, { feed: cachedFeed! })
    t.equal(equal.fairness.length, Object.keys(uncachedSpecs(paths, CONNECTIONS)).length, 'all of them')
    allFair(t, Object.values(figures))
    // The old figure: one URL from every connection, the cache off. Concurrent reads share one
    // load, and its reads, judged as an uncached figure's, say so.
    const burst = figures.firstMerged.fairness
    t.ok(burst.loadsPerRequest! < PER_REQUEST_BAND.min, `one URL: ${burst.loadsPerRequest} loads a request`)
    t.match(
      readProblems({ work: 'uncached' }, burst.sql!, CONNECTIONS),
      [/^uncached, yet \d\.\d\d loads a request \(\d+ reads of posts for \d+ requests/],
      'passed off as uncached: not equal work',
    )
  })
})

t.test(
  'a cached list figure reading the generation less than once for each connection, or more than once a request, is reported',
  async (t) => {
    const reads = (generationReads: number) => ({
      requests: 100,
      postsReads: 0,
      generationReads,
      otherReads: 0,
      loneReadsPerRequest: 0,
    })
    const cachedList = { work: 'cached', readsGeneration: true } as const
    t.same(readProblems(cachedList, reads(12), 20), [], 'reads shared by the requests of 20 connections')
    t.same(readProblems(cachedList, reads(100), 20), [], 'one a request')
    const problem = (perRequest: string) =>
      `cached list, yet ${perRequest} reads of the generation a request (0.05 to 1.05 with 20 connections)`
    t.same(readProblems(cachedList, reads(0), 20), [problem('0.00')], 'none: stale pages')
    t.same(
      readProblems(cachedList, reads(3), 20),
      [problem('0.03')],
      'fewer than a read for each round of connections: a stale shortcut',
    )
    t.same(readProblems(cachedList, reads(150), 20), [problem('1.50')], 'more than one a request')
  },
)
