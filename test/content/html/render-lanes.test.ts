// The large lane's thread yields the CPU (src/content/html/render-worker.ts): shown by its nice
// value, read from /proc (Linux), not by timing it. A long body starts the large lane's thread at
// 10 more than the process's nice, and so does a short body that costs as much (render-cost.ts);
// the small lane's, which renders everyone's ordinary posts,
// keeps the process's own.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import type { Test } from 'tap'
import t from 'tap'
import { LARGE_RENDER_COST } from '../../../src/content/html/post-html.ts'
import { registerUser } from '../../helpers/accounts.ts'
import { build } from '../../helpers/build.ts'

const niceOf = (stat: string) => Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])

/** How many of this process's threads run at `nice` (the 19th field of /proc/self/task/<tid>/stat). */
const threadsAt = (nice: number) =>
  readdirSync('/proc/self/task').filter((tid) => niceOf(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8')) === nice)
    .length

/** How many threads more than before run at 10 more than this one's nice, once `body` is written. */
async function threadsLoweredBy(t: Test, body: string) {
  const app = await build(t)
  const user = await registerUser(app, 'writer')
  // The test runner may give its threads nice values of their own: count the threads that move.
  const lowered = Math.min(19, niceOf(readFileSync('/proc/thread-self/stat', 'utf8')) + 10)
  const before = threadsAt(lowered)
  const answer = await app.inject({
    method: 'POST',
    url: '/posts',
    headers: user.auth,
    payload: { title: 'Lanes', body },
  })
  t.equal(answer.statusCode, 201)
  return threadsAt(lowered) - before
}

const noProc = !existsSync('/proc/self/task') && 'no /proc'

t.test('a short body renders on a thread of ordinary priority', { skip: noProc }, async (t) => {
  t.equal(await threadsLoweredBy(t, 'A short post.'), 0, 'no thread more at a lower priority')
})

t.test('a long body renders on a thread of lower priority', { skip: noProc }, async (t) => {
  t.equal(await threadsLoweredBy(t, 'word '.repeat(LARGE_RENDER_COST / 5 + 1)), 1, "one thread more: the large lane's")
})

t.test('so does a short table a thousand columns wide, which renders as slowly', { skip: noProc }, async (t) => {
  const wide = '|' + 'a|'.repeat(1000) + '\n|' + '-|'.repeat(1000) + '\n' + 'x\n'.repeat(66)
  t.ok(wide.length < LARGE_RENDER_COST, `${wide.length} characters`)
  t.equal(await threadsLoweredBy(t, wide), 1, "one thread more: the large lane's")
})
