// The large lane's thread yields the CPU (src/content/html/render-worker.ts): shown by its nice
// value, read from /proc (Linux), not by timing it. A long body starts the large lane's thread at
// 10 more than the process's nice; the small lane's, which renders everyone's ordinary posts,
// keeps the process's own.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import t from 'tap'
import { LARGE_BODY_LENGTH } from '../../../src/content/html/post-html.ts'
import { registerUser } from '../../helpers/accounts.ts'
import { build } from '../../helpers/build.ts'

const niceOf = (stat: string) => Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])

/** How many of this process's threads run at `nice` (the 19th field of /proc/self/task/<tid>/stat). */
const threadsAt = (nice: number) =>
  readdirSync('/proc/self/task').filter((tid) => niceOf(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8')) === nice)
    .length

t.test(
  'a long body renders on a thread of lower priority, a short one does not',
  { skip: !existsSync('/proc/self/task') && 'no /proc' },
  async (t) => {
    const app = await build(t)
    const user = await registerUser(app, 'writer')
    const create = (body: string) =>
      app.inject({ method: 'POST', url: '/posts', headers: user.auth, payload: { title: 'Lanes', body } })
    // The test runner may give its threads nice values of their own: count the threads that move.
    const lowered = Math.min(19, niceOf(readFileSync('/proc/thread-self/stat', 'utf8')) + 10)
    const before = threadsAt(lowered)
    t.equal((await create('A short post.')).statusCode, 201)
    t.equal(threadsAt(lowered), before, `a short body: no thread more at nice ${lowered}`)
    t.equal((await create('word '.repeat(LARGE_BODY_LENGTH / 5 + 1))).statusCode, 201)
    t.equal(threadsAt(lowered), before + 1, `a long body: one thread more at nice ${lowered}, the large lane's`)
  },
)
