// Rendering is linear in the body, however hostile: the work for a body of 2n characters is at most
// about twice that for n characters, and bounded per character, for every family of pathological
// Markdown in pathological-bodies.ts. Work is counted (test/helpers/work-meter.ts), never timed:
// timings are logged for the report, not asserted. The body schema's maxLength (100 000) bounds
// n, and the largest body of every family renders in bounded output, but for the families named as
// refused (their HTML outgrows the bound): refusals are counted, so refusing more fails.
import t from 'tap'
import { HTML_MAX_LENGTH } from '../../../src/content/html/limits.ts'
import { renderMarkdown } from '../../../src/content/html/markdown.ts'
import { measure } from '../../helpers/work-meter.ts'
import { blowUp, pathologicalBodies } from './pathological-bodies.ts'

/** Post.body's maxLength in the spec. */
const BODY_MAX_LENGTH = 100_000
const N = 25_000
/** Doubling the body may double the work, and a little more (line ends, one-off costs); not quadruple it. */
const MAX_RATIO = 2.2
/** Work per character of body, at most: about 100 was the most seen (email autolinks). */
const MAX_WORK_PER_CHARACTER = 150

const workOf = (body: string) => measure(() => renderMarkdown(body)).work

t.test('the meter sees superlinear work: the blow-up without its bound', async (t) => {
  // A link reference used n/3 times renders its URL (n/2 characters) n/3 times: quadratic output.
  const unbounded = (body: string) => measure(() => renderMarkdown(body, Number.POSITIVE_INFINITY)).work
  const ratio = unbounded(blowUp(8_000)) / unbounded(blowUp(4_000))
  t.ok(ratio > 3.5, `unbounded, doubling the body multiplied the work by ${ratio.toFixed(2)}`)
})

t.test('the work grows linearly with the body, for every family', async (t) => {
  const doubled = new Map(pathologicalBodies(2 * N))
  for (const [name, body] of pathologicalBodies(N)) {
    const [work, workDoubled] = [workOf(body), workOf(doubled.get(name)!)]
    const ratio = workDoubled / work
    t.ok(ratio <= MAX_RATIO, `${name}: ×${ratio.toFixed(2)} for twice the body (${work} → ${workDoubled})`)
    t.ok(
      workDoubled / (2 * N) <= MAX_WORK_PER_CHARACTER,
      `${name}: ${(workDoubled / (2 * N)).toFixed(1)} per character`,
    )
  }
})

/**
 * The families whose largest body is refused: their HTML grows faster than the body (a reference
 * used again and again, blockquotes thirty deep on every line). Every other family renders: a
 * renderer refusing more than these would pass a test that only checked what was rendered.
 */
const REFUSED_AT_MAX_LENGTH = ['deep quotes again and again', 'long reference used again and again']

t.test('the largest body of every family renders within the bound on HTML, or is one of those refused', async (t) => {
  const timings: [string, number][] = []
  const refused: string[] = []
  const bodies = pathologicalBodies(BODY_MAX_LENGTH)
  for (const [name, body] of bodies) {
    t.equal(body.length, BODY_MAX_LENGTH, name)
    const started = performance.now()
    const result = renderMarkdown(body)
    timings.push([name, performance.now() - started])
    if ('html' in result) {
      const bytes = Buffer.byteLength(result.html)
      t.ok(bytes <= HTML_MAX_LENGTH, `${name}: ${bytes} bytes`)
    } else refused.push(name)
  }
  t.same(
    refused,
    REFUSED_AT_MAX_LENGTH,
    `${refused.length} of ${bodies.length} refused as rendering past ${HTML_MAX_LENGTH} bytes: these only`,
  )
  // For the report, not asserted: on the renderer's worker thread, off the event loop.
  timings.sort((a, b) => b[1] - a[1])
  t.comment(
    `slowest renders of ${BODY_MAX_LENGTH} characters: ${timings
      .slice(0, 5)
      .map(([name, ms]) => `${name} ${ms.toFixed(0)} ms`)
      .join(', ')}`,
  )
})

t.test('a body whose HTML blows up is refused, with work bounded by the bound, not the blow-up', async (t) => {
  const result = renderMarkdown(blowUp(BODY_MAX_LENGTH))
  t.same(result, { tooLarge: true })
  const ratio = workOf(blowUp(2 * N)) / workOf(blowUp(N))
  t.ok(ratio <= MAX_RATIO, `×${ratio.toFixed(2)} for twice the body`)
})

t.test('the bound counts bytes: HTML of three-byte characters is refused by its weight', async (t) => {
  // A link title of 49 000 three-byte characters, used 20 times: 980 000 characters, 2.9 MB.
  const body = `[r]: /u "${'東'.repeat(49_000)}"\n\n${'[a][r]'.repeat(20)}`
  t.ok(body.length <= BODY_MAX_LENGTH, 'a body within its bound')
  t.same(renderMarkdown(body), { tooLarge: true }, `refused: more than ${HTML_MAX_LENGTH} bytes of HTML`)
})
