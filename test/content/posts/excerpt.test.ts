// The excerpt scanner: what it derives, and that its work grows linearly with the body, whatever
// the body holds. Work is counted in the scanner's own steps (characters read), not timed: a
// regex-based excerpt took 3–11 s on the hostile bodies below (see the commit that added this file).
import t from 'tap'
import { deriveExcerpt, scanExcerpt } from '../../../src/content/posts/excerpt.ts'
import { HOSTILE_BODIES, HOSTILE_LENGTH as N } from '../../helpers/hostile-text.ts'

/**
 * The excerpt as it was derived before the scanner, by regexes that backtrack quadratically on
 * unclosed brackets. Kept as the oracle of what an excerpt means: on small inputs it is fast, and
 * the scanner must agree with it character for character.
 */
function regexExcerpt(markdown: string): string {
  const text = markdown
    .replace(/```[\s\S]*?```/g, ' ')
    .replace(/!\[[^\]]*\]\([^)]*\)/g, ' ')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/^\s{0,3}(#{1,6}|>|[-*+]|\d+\.)\s+/gm, '')
    .replace(/[*_`~]/g, '')
    .replace(/\s+/g, ' ')
    .trim()
  if (text.length <= 280) return text
  const cut = text.slice(0, 280)
  return `${cut.slice(0, cut.lastIndexOf(' ') > 0 ? cut.lastIndexOf(' ') : 280)}…`
}

/** Every character is read a bounded number of times by each of the scanner's passes. */
const STEPS_PER_CHARACTER = 16

t.test('every hostile body is scanned in steps linear in its length', async (t) => {
  for (const [name, body] of Object.entries(HOSTILE_BODIES)) {
    const { steps } = scanExcerpt(body)
    t.ok(steps <= STEPS_PER_CHARACTER * body.length, `${name}: ${steps} steps for ${body.length} characters`)
  }
})

t.test('work doubles when the body doubles, for every hostile shape', async (t) => {
  for (const [name, body] of Object.entries(HOSTILE_BODIES)) {
    const half = scanExcerpt(body.slice(0, N / 2)).steps
    const whole = scanExcerpt(body).steps
    t.ok(whole <= 2 * half + 64, `${name}: ${half} steps for half, ${whole} for the whole`)
  }
})

t.test('the scanner derives what the regexes derived', async (t) => {
  const cases = [
    '# Heading\n\nSome *emphasis* and a [link](https://example.com).',
    'Text ![alt](img.png) more [a](b) and `code` ~~gone~~ __bold__',
    '```js\nconst x = 1\n```\nAfter the fence',
    '   - item one\n  2. item two\n> quoted\n####### not a heading',
    '[outer ![inner](i.png) text](u) tail',
    '![unclosed [link](x)',
    '\n\n# two lines down\n    # indented four',
    `${'word '.repeat(80)}end`,
    'x'.repeat(300),
    `${'a'.repeat(279)} ${'b'.repeat(10)}`,
  ]
  for (const markdown of cases)
    t.equal(deriveExcerpt(markdown), regexExcerpt(markdown), JSON.stringify(markdown.slice(0, 60)))
})

t.test('the scanner agrees with the regexes on random Markdown-like text', async (t) => {
  // A seeded generator: the same 20 000 inputs on every run, so a failure can be replayed.
  let seed = 14
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648
  const alphabet = [
    '!',
    '[',
    ']',
    '(',
    ')',
    '`',
    '```',
    '*',
    '_',
    '~',
    '#',
    '######',
    '>',
    '-',
    '+',
    '1',
    '.',
    ' ',
    '  ',
    '\n',
    '\t',
    '\r',
    '\u2028',
    '\u00a0',
    'a',
    'word',
    '\ufeff',
  ]
  let disagreements = 0
  for (let i = 0; i < 20_000; i++) {
    const length = Math.floor(random() * (i % 10 === 0 ? 400 : 40))
    let markdown = ''
    for (let j = 0; j < length; j++) markdown += alphabet[Math.floor(random() * alphabet.length)]
    if (deriveExcerpt(markdown) !== regexExcerpt(markdown) && disagreements++ < 5)
      t.equal(deriveExcerpt(markdown), regexExcerpt(markdown), JSON.stringify(markdown))
  }
  t.equal(disagreements, 0, 'no input where the two differ')
})

t.test('hostile bodies give the excerpt the regexes would have given', async (t) => {
  // The regexes are only fast enough on a short prefix; the excerpt of each shape is the same.
  for (const [name, body] of Object.entries(HOSTILE_BODIES)) {
    const prefix = body.slice(0, 2000)
    t.equal(deriveExcerpt(prefix), regexExcerpt(prefix), name)
  }
})
