// The lists' generation read shared between list requests (src/db/read-after-arrival.ts): shared
// only by callers that arrived before it started, so none is answered from a read that may predate
// a write answered before its call; and, over HTTP on PostgreSQL, concurrent cached list pages
// cost the database two generation reads, not one each.
import t from 'tap'
import { readAfterArrival } from '../../src/db/read-after-arrival.ts'
import { registerUser } from '../helpers/accounts.ts'
import { build, usingPostgres } from '../helpers/build.ts'
import { createPost } from '../helpers/posts.ts'
import { statementsOf } from '../helpers/statements.ts'

/** A read the test finishes by hand: each call records when it started and waits for `finish`. */
function manualReads() {
  const started: { finish: (value: number) => void; fail: (error: Error) => void }[] = []
  const read = () =>
    new Promise<number>((resolve, reject) => {
      started.push({ finish: resolve, fail: reject })
    })
  return { read, started }
}

t.test('a caller starts a read; those arriving while it is in flight share the next one', async (t) => {
  const { read, started } = manualReads()
  const current = readAfterArrival(read)
  const first = current()
  t.equal(started.length, 1, 'with nothing in flight, a caller starts a read at once')
  // The database's value may move on (a write commits and is answered) while that read is in flight.
  const later = [current(), current(), current()]
  t.equal(started.length, 1, 'the callers arriving during it start no read of their own')
  started[0]!.finish(1)
  t.equal(await first, 1)
  await new Promise((resolve) => setImmediate(resolve))
  t.equal(started.length, 2, 'one next read starts once the first has ended, for all who waited')
  started[1]!.finish(2)
  t.same(await Promise.all(later), [2, 2, 2], 'they get the value read after they arrived, never the older one')
  const alone = current()
  t.equal(started.length, 3, 'nothing in flight again: a read at once')
  started[2]!.finish(3)
  t.equal(await alone, 3)
})

t.test('a failed read fails its sharers only; the next caller reads again', async (t) => {
  const { read, started } = manualReads()
  const current = readAfterArrival(read)
  const failing = current()
  const waiting = current()
  started[0]!.fail(new Error('connection lost'))
  await t.rejects(failing, /connection lost/)
  await new Promise((resolve) => setImmediate(resolve))
  t.equal(started.length, 2, 'the caller waiting for the next read gets one, the failure not shared with it')
  started[1]!.finish(7)
  t.equal(await waiting, 7)
})

t.test(
  'concurrent cached list pages read the generation twice at most, and see a write answered before them',
  { skip: usingPostgres ? false : 'counted on node-postgres, which the embedded database does not use' },
  async (t) => {
    const app = await build(t)
    const author = await registerUser(app)
    await createPost(app, author, { status: 'published' })
    const page = () => app.inject({ method: 'GET', url: '/posts?limit=5' })
    t.equal((await page()).statusCode, 200, 'the page is cached')
    const reads = await statementsOf(async () => {
      const answers = await Promise.all(Array.from({ length: 20 }, page))
      t.ok(answers.every((answer) => answer.statusCode === 200))
    })
    const generationReads = reads.texts.filter((text) => /from list_generations/.test(text))
    t.ok(generationReads.length <= 2, `20 pages at once: ${generationReads.length} generation reads`, {
      statements: reads.texts,
    })
    t.equal(reads.count, generationReads.length, 'and nothing else: every page came from the cache')

    const post = await createPost(app, author, { status: 'published' })
    const after = await page()
    t.equal(after.json().data[0].id, post.id, 'the page read after the write was answered shows it')
  },
)
