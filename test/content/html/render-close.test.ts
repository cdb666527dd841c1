// Closing the renderer lets the bodies waiting in its fair queue render first: they wait outside
// piscina (src/content/html/post-html.ts), so closing piscina alone would refuse them.
// Shown on the renderer itself. Through the app (three injected writes, then app.close()) each
// write goes on to its transaction once rendered, while the close goes on to the database: Fastify
// waits for the HTTP requests in flight before its onClose hooks, not for injected ones, so the
// writes raced the database's close and lost it to Prisma's "Transaction not found" (500) whenever
// the worker thread stopped faster than a transaction ran (most runs on Node 24, some on Node 20).
import t from 'tap'
import { LARGE_RENDER_COST, makeHtmlRenderer } from '../../../src/content/html/post-html.ts'

t.test('closing lets the bodies waiting in the fair queue render first', async (t) => {
  const renderer = makeHtmlRenderer()
  const body = 'a|b\n-|-\n' + 'a|b\n'.repeat(LARGE_RENDER_COST / 4)
  // One renders, two wait in the large lane's queue (outside piscina's) when the renderer closes.
  const renders = Array.from({ length: 3 }, () => renderer.render(body, 'writer'))
  await renderer.close()
  const settled = await Promise.allSettled(renders)
  t.same(
    settled.map((outcome) => outcome.status),
    ['fulfilled', 'fulfilled', 'fulfilled'],
    'every body rendered',
  )
  for (const outcome of settled) if (outcome.status === 'fulfilled') t.match(outcome.value.html, /^<table>/)
})
