// Every piscina pool in src/ is made by makeWorkerPool (src/worker-pool.ts), and such a pool keeps
// no timings: piscina's histogram reads nothing after a task has run, where a pool with piscina's
// defaults reads the task's run time.
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Piscina } from 'piscina'
import t from 'tap'
import { makeWorkerPool } from '../src/worker-pool.ts'

const SRC = fileURLToPath(new URL('../src/', import.meta.url))
const worker = new URL('../src/auth/passwords/password-worker.mjs', import.meta.url).href
const task = { password: 'timing', cost: 4 }

t.test('no pool in src/ is made with piscina directly', async (t) => {
  const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((file) =>
    /\.(ts|mts|js|mjs)$/.test(file),
  )
  const direct = files.filter(
    (file) => file !== 'worker-pool.ts' && /new Piscina\b/.test(readFileSync(join(SRC, file), 'utf8')),
  )
  t.same(direct, [], `made with makeWorkerPool instead (${relative(process.cwd(), SRC)})`)
  t.match(readFileSync(join(SRC, 'auth/passwords/passwords.ts'), 'utf8'), /makeWorkerPool\(/)
  t.match(readFileSync(join(SRC, 'content/html/post-html.ts'), 'utf8'), /makeWorkerPool</)
})

t.test("a pool from makeWorkerPool records no timings; piscina's default does", async (t) => {
  const pool = makeWorkerPool<typeof task, string>({ filename: worker, maxThreads: 1 })
  const plain = new Piscina<typeof task, string>({ filename: worker, maxThreads: 1 })
  t.teardown(() => Promise.all([pool.close(), plain.close()]))
  t.match(await pool.run(task, { name: 'hash' }), /^\$2/)
  t.match(await plain.run(task, { name: 'hash' }), /^\$2/)
  t.equal(pool.histogram.runTime, undefined, 'no run times kept')
  t.equal(pool.histogram.waitTime, undefined, 'no wait times kept')
  t.ok(plain.histogram.runTime, "piscina's default keeps them: the check above can see them")
})
