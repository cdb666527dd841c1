// The renderer's queue (src/content/html/fair-queue.ts): turns and places, counted. The order in
// which jobs are taken and who is admitted are what the renderer's threads then follow, one job at
// a time, so these counts are what bounds how long one account's bodies delay another's.
import t from 'tap'
import { FairQueue } from '../../../src/content/html/fair-queue.ts'

/** The flood: a 100 000-character table, eight from each of three accounts. */
const COSTLY = 100_000
const drain = <T>(queue: FairQueue<T>) => {
  const taken: T[] = []
  for (let item = queue.take(); item !== undefined; item = queue.take()) taken.push(item)
  return taken
}

t.test("an innocent account's one-line body is taken ahead of three flooders' backlog", async (t) => {
  const queue = new FairQueue<string>(64)
  for (let i = 0; i < 8; i++) for (const flooder of ['a', 'b', 'c']) queue.add(flooder, COSTLY, `${flooder}${i}`)
  t.equal(queue.take(), 'a0', 'one flood body goes to the thread')
  queue.add('innocent', 20, 'innocent')
  const order = drain(queue)
  // b0 and c0 were queued before it in the same round: fair turns let each account have one.
  t.equal(order.indexOf('innocent'), 2, 'taken 3rd of 24 waiting: after one body of each other flooder (FIFO: 24th)')
})

t.test("an innocent account's costly body waits for a turn or two of each flooder, not their backlog", async (t) => {
  const queue = new FairQueue<string>(64)
  for (let i = 0; i < 8; i++) for (const flooder of ['a', 'b', 'c']) queue.add(flooder, COSTLY, `${flooder}${i}`)
  t.equal(queue.take(), 'a0')
  queue.add('innocent', COSTLY, 'innocent')
  const order = drain(queue)
  // It arrived while the first round (a0, b0, c0) was served, and takes its turn in the second.
  t.ok(
    order.indexOf('innocent') <= 5,
    `taken ${order.indexOf('innocent') + 1}th of 24 waiting: after at most two bodies of each flooder (FIFO: 24th)`,
  )
  t.same(
    order.filter((item) => item.startsWith('a')),
    ['a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'a7'],
    "each account's own bodies keep their order",
  )
})

t.test('turns are weighted by cost: many short bodies of one account do not wait behind one long one', async (t) => {
  const queue = new FairQueue<string>(64)
  queue.add('long', COSTLY, 'long0')
  queue.add('long', COSTLY, 'long1')
  for (let i = 0; i < 10; i++) queue.add('short', 1_000, `short${i}`)
  const order = drain(queue)
  t.same(
    order.slice(0, 10),
    Array.from({ length: 10 }, (_, i) => `short${i}`),
    '10 × 1 000 characters before 100 000',
  )
})

t.test('when every place is taken, a newcomer pushes out the newest body of whoever holds the most', async (t) => {
  const queue = new FairQueue<string>(64)
  // Eight flooders fill the 64 places (the issue: every post write was then refused).
  for (let f = 0; f < 8; f++)
    for (let i = 0; i < 8; i++) t.same(queue.add(`f${f}`, COSTLY, `f${f}-${i}`), { admitted: true })
  t.equal(queue.size, 64)
  const admission = queue.add('innocent', 20, 'innocent')
  t.same(admission, { admitted: true, pushedOut: 'f0-7' }, "admitted; a flooder's newest body pushed out")
  t.equal(queue.size, 64, 'still 64 places')
  t.equal(queue.held('f0'), 7)
  t.equal(queue.take(), 'innocent', 'and taken first')

  // Sixty-three more innocents, one body each, get in: the flooders hold fewer and fewer places.
  for (let i = 1; i <= 63; i++) t.equal(queue.add(`innocent${i}`, 20, `i${i}`).admitted, true)
  const flooders = Array.from({ length: 8 }, (_, f) => queue.held(`f${f}`))
  t.ok(Math.max(...flooders) <= 1, `no flooder holds more than one place now (${flooders.join(', ')})`)
  // An account already holding as many places as the most any holds is refused.
  t.same(queue.add('innocent1', 20, 'again'), { admitted: false }, 'refused: it holds as many as anyone')
  t.equal(queue.size, 64)
})

t.test('an account holds at most its share of the places while others ask for one', async (t) => {
  const queue = new FairQueue<string>(16)
  // A flooder without a per-account cap tries to take every place, an other account asks meanwhile.
  for (let i = 0; i < 100; i++) {
    queue.add('flooder', COSTLY, `f${i}`)
    queue.add(`other${i % 8}`, 20, `o${i}`)
  }
  t.equal(queue.size, 16)
  t.ok(queue.held('flooder') <= 2, `the flooder holds ${queue.held('flooder')} of 16 places, as much as the others`)
  for (let o = 0; o < 8; o++) t.ok(queue.held(`other${o}`) >= 1, `other${o} holds a place`)
})
