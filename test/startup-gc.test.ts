// The process entry collects start-up's garbage once, after building the app and before listening
// (src/startup-gc.ts): V8's own trace shows that collection, asked for by code (V8 calls the
// reason "testing", as for any gc() call), in its memory-reducing rounds ("Mark-Compact (reduce)"),
// and the heap's committed size given back.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { startServer } from './helpers/server-process.ts'

/** "Mark-Compact (reduce) 125.5 (244.1) -> 78.9 (90.2) MB": used (committed) before -> after. */
const TRACE = /Mark-Compact \(reduce\) ([\d.]+) \(([\d.]+)\) -> ([\d.]+) \(([\d.]+)\) MB.* testing;/

t.test('a memory-reducing full collection asked for by the code, before the port listens', async (t) => {
  const server = await startServer(
    {
      DATA_DIR: mkdtempSync(join(tmpdir(), 'blog-startup-gc-')),
      DATABASE_URL: process.env.DATABASE_URL ?? '',
      JWT_SECRET: 'startup-gc-test-secret-startup-gc-test-0123',
    },
    [process.execPath, '--trace-gc', '--import=tsx', 'src/server.ts'],
  )
  t.teardown(() => void server.child.kill('SIGTERM'))
  t.equal((await fetch(`${server.url}/ping`)).status, 200)
  t.ok(
    server.lines.some((line) => line.includes('Mark-Compact')),
    'the trace is there: V8 printed its collections',
  )
  const listening = server.lines.findIndex((line) => line.includes('Server listening at'))
  const asked = server.lines.flatMap((line, index) => {
    const match = TRACE.exec(line)
    return match ? [{ index, figures: match.slice(1).map(Number) }] : []
  })
  t.ok(asked.length > 0, 'a collection asked for by code, in its memory-reducing rounds')
  t.ok(
    asked.every(({ index }) => index < listening),
    'all before the public port listens',
  )
  const committedBefore = asked[0]?.figures[1] ?? 0
  const committedAfter = asked.at(-1)?.figures[3] ?? Infinity
  const ms = asked.reduce((sum, { index }) => sum + Number(/([\d.]+) \/ [\d.]+ ms/.exec(server.lines[index]!)?.[1]), 0)
  t.ok(
    committedAfter < committedBefore,
    `heap committed ${committedBefore} -> ${committedAfter} MB, in ${Math.round(ms)} ms`,
  )
  server.child.kill('SIGTERM')
  t.equal(await server.exit, 0)
})
