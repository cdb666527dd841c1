// Finding the media URLs of a body (mediaKeysIn, before rendering, on the thread that serves
// requests) reads the body in linear time whatever it holds, and stops at MEDIA_PER_POST distinct
// URLs. Work is counted (test/helpers/work-meter.ts), never timed, as for rendering
// (test/content/html/pathological.test.ts).
import t from 'tap'
import { MEDIA_PER_POST, mediaKeysIn } from '../../../src/content/html/body-media.ts'
import type { ImageUrls } from '../../../src/images/image-urls.ts'
import { measure } from '../../helpers/work-meter.ts'

const URLS: ImageUrls = { publicPath: '/blog', publicBaseUrl: 'https://cdn.example.com/media' }
const N = 25_000
/** As for rendering: doubling the body may double the work, and a little more; not quadruple it. */
const MAX_RATIO = 2.2
const MAX_WORK_PER_CHARACTER = 20

const hex = (n: number) => n.toString(16).padStart(64, '0')
const fill = (unit: (i: number) => string, length: number) => {
  let text = ''
  for (let i = 0; text.length < length; i++) text += unit(i)
  return text.slice(0, length)
}

/** Bodies built to make a scanner read them again and again. */
const hostile = (n: number): [string, string][] => [
  ['.webp again and again', fill(() => '.webp', n)],
  ['hex runs, each ending in .webp', fill(() => `${'f'.repeat(64)}.webp`, n)],
  ['hex without an end', fill(() => 'a', n - 5) + '.webp'],
  ['prefixes and nothing else', fill(() => '/blog/images/', n)],
  ['one media URL again and again', fill(() => `![x](/blog/images/${hex(1)}.webp)\n`, n)],
  ['the base prefix, almost', fill(() => `https://cdn.example.com/medi/${hex(2)}.webp `, n)],
  ['keys behind every prefix but one character short', fill((i) => `/blog/images/${hex(i).slice(1)}.webp`, n)],
]

t.test('finds the media URLs of both forms, each once, in order, and nothing else', async (t) => {
  const body = [
    `![a](/blog/images/${hex(1)}.webp)`,
    `![b](https://cdn.example.com/media/${hex(2)}.webp)`,
    `![a again](/blog/images/${hex(1)}.webp)`,
    `![other path](/images/${hex(3)}.webp)`,
    `![upper](/blog/images/${hex(0xabcdef).toUpperCase()}.webp)`,
    `![png](/blog/images/${hex(5)}.png)`,
    `![no base](https://cdn.example.com/${hex(6)}.webp)`,
  ].join('\n')
  t.same(mediaKeysIn(body, URLS), [`${hex(1)}.webp`, `${hex(2)}.webp`])
  // A superset of what renders: /blog/images/<key> ends in /images/<key>; the renderer then
  // compares each image's whole URL (mediaKeyOf).
  t.same(mediaKeysIn(body, { publicPath: '' }), [`${hex(1)}.webp`, `${hex(3)}.webp`], 'without a path or a base')
})

t.test(`stops at ${MEDIA_PER_POST} distinct URLs`, async (t) => {
  const body = Array.from({ length: 2 * MEDIA_PER_POST }, (_, i) => `![](/blog/images/${hex(i)}.webp)`).join('\n')
  const keys = mediaKeysIn(body, URLS)
  t.equal(keys.length, MEDIA_PER_POST)
  t.equal(keys.at(-1), `${hex(MEDIA_PER_POST - 1)}.webp`, 'the first ones')
})

t.test('the work grows linearly with the body, for every hostile body', async (t) => {
  const doubled = new Map(hostile(2 * N))
  for (const [name, body] of hostile(N)) {
    const work = measure(() => mediaKeysIn(body, URLS)).work
    const workDoubled = measure(() => mediaKeysIn(doubled.get(name)!, URLS)).work
    const ratio = workDoubled / work
    t.ok(ratio <= MAX_RATIO, `${name}: ×${ratio.toFixed(2)} for twice the body (${work} → ${workDoubled})`)
    t.ok(
      workDoubled / (2 * N) <= MAX_WORK_PER_CHARACTER,
      `${name}: ${(workDoubled / (2 * N)).toFixed(1)} per character`,
    )
  }
})
