// The lists' generation read shared between list requests (src/db/read-after-arrival.ts): shared
// only by the callers of one turn of the event loop, started after the last of them arrived, so
// none is answered from a read that may predate a write answered before its call, and a stalled
// or failed read holds up or fails only its own turn; and, over HTTP on PostgreSQL, concurrent
// cached list pages cost the database far fewer generation reads than pages.
import t from 'tap'
import { readAfterArrival } from '../../src/db/read-after-arrival.ts'
import { registerUser } from '../helpers/accounts.ts'
import { build, usingPostgres } from '../helpers/build.ts'
import { createPost } from '../helpers/posts.ts'
import { statementsSentDuring } from '../helpers/statements.ts'

/** A read the test finishes by hand: each call records that it started and waits for `finish`. */
function manualReads() {
  const started: { finish: (value: number) => void; fail: (error: Error) => void }[] = []
  const read = () =>
    new Promise<number>((resolve, reject) => {
      started.push({ finish: resolve, fail: reject })
    })
  return { read, started }
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve))

t.test('the callers of one turn share one read, started after the last of them arrived', async (t) => {
  const { read, started } = manualReads()
  const current = readAfterArrival(read)
  const together = [current(), current(), current()]
  t.equal(started.length, 0, 'no read starts while callers may still arrive in this turn')
  await nextTurn()
  t.equal(started.length, 1, 'one read for all three, once their turn is over')
  started[0]!.finish(1)
  t.same(await Promise.all(together), [1, 1, 1])
})

t.test('a caller of a later turn never gets an earlier read, even one still in flight', async (t) => {
  const { read, started } = manualReads()
  const current = readAfterArrival(read)
  const first = current()
  await nextTurn()
  t.equal(started.length, 1)
  // The database's value may move on (a write commits and is answered) while that read is in flight.
  const later = current()
  await nextTurn()
  t.equal(started.length, 2, 'the later caller has a read of its own, started after it arrived')
  started[1]!.finish(2)
  t.equal(await later, 2, 'answered without waiting for the earlier read')
  started[0]!.finish(1)
  t.equal(await first, 1)
})

t.test('a read that stalls or fails holds up or fails only the callers of its turn', async (t) => {
  const { read, started } = manualReads()
  const current = readAfterArrival(read)
  const stalled = current()
  await nextTurn()
  const failing = [current(), current()]
  await nextTurn()
  const fine = current()
  await nextTurn()
  t.equal(started.length, 3, 'one read a turn')
  started[1]!.fail(new Error('connection reset'))
  started[2]!.finish(3)
  await t.rejects(failing[0]!, /connection reset/)
  await t.rejects(failing[1]!, /connection reset/)
  t.equal(await fine, 3, 'a later turn is answered while the first read still hangs')
  started[0]!.finish(1)
  t.equal(await stalled, 1)
})

t.test(
  'concurrent cached list pages share their generation reads, and see a write answered before them',
  { skip: usingPostgres ? false : 'counted on node-postgres, which the embedded database does not use' },
  async (t) => {
    const app = await build(t)
    const author = await registerUser(app)
    await createPost(app, author, { status: 'published' })
    const page = () => app.inject({ method: 'GET', url: '/posts?limit=5' })
    t.equal((await page()).statusCode, 200, 'the page is cached')
    // Counted by whoever sends them, not by async context (statementsOf, see statementsSentDuring).
    const sent = await statementsSentDuring(async () => {
      const answers = await Promise.all(Array.from({ length: 20 }, page))
      t.ok(answers.every((answer) => answer.statusCode === 200))
    })
    const generationReads = sent.filter((text) => /from list_generations/.test(text))
    t.ok(
      generationReads.length >= 1 && generationReads.length <= 2,
      `20 pages at once: ${generationReads.length} generation reads`,
      {
        statements: sent,
      },
    )
    t.equal(
      sent.filter((text) => /from posts/.test(text)).length,
      0,
      'and no read of posts: every page came from the cache',
    )

    const post = await createPost(app, author, { status: 'published' })
    const after = await page()
    t.equal(after.json().data[0].id, post.id, 'the page read after the write was answered shows it')
  },
)
