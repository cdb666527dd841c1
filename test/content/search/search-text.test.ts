// searchText, the text a post is indexed by. What keeps PostgreSQL's text-search parser linear is
// checked on the prepared text itself, by sizes and counts (no time): no run without white space
// longer than MAX_RUN characters, none with more than MAX_MARKS marks or a second `@`, no `<` that
// opens a tag or comment. The parser's read-ahead stops at the end of such a run (see the file's
// comment; figures in the commit that added it). And the only change is spaces: text already within
// those bounds is indexed as it always was.
import fc from 'fast-check'
import t from 'tap'
import { MAX_MARKS, MAX_RUN, searchText } from '../../../src/content/search/search-text.ts'
import { HOSTILE_BODIES, HOSTILE_SEARCH_BODIES } from '../../helpers/hostile-text.ts'

const WHITE_SPACE = /[ \n\t\r\f\v]/
const isMark = (char: string) => !/[A-Za-z0-9\p{L}\p{M}]/u.test(char)

/** How `text` breaks the bounds the parser needs; empty when it keeps them. */
function violations(text: string): string[] {
  const found: string[] = []
  if (/<[A-Za-z/!?:_]/.test(text)) found.push('a < that opens a tag or comment')
  if (/\p{Cs}/u.test(text)) found.push('a surrogate pair cut in two')
  for (const run of text.split(WHITE_SPACE)) {
    const chars = [...run]
    if (chars.length > MAX_RUN) found.push(`a run of ${chars.length} characters`)
    if (chars.filter(isMark).length > MAX_MARKS) found.push(`a run of ${chars.filter(isMark).length} marks`)
    if (chars.filter((char) => char === '@').length > 1) found.push('a run with two @')
  }
  return found
}

/** The text without white space, `<` that opens a tag or comment counted as white space. */
const visible = (text: string) => text.replace(/<(?=[A-Za-z/!?:_])/g, ' ').replace(new RegExp(WHITE_SPACE, 'g'), '')

// The characters the parser's constructs are made of, and some it does not know.
const hostileUnit = fc.constantFrom(
  'a',
  'Z',
  '1',
  '_',
  '-',
  '.',
  '/',
  '~',
  '@',
  ':',
  '<',
  '!',
  '?',
  '"',
  "'",
  '>',
  '&',
  '#',
  ';',
  '+',
  '=',
  '%',
  '\\',
  'é',
  '中',
  '٣',
  '\u0301',
  '\u200b',
  '\u00a0',
  '😀',
  ' ',
  '\n',
  '\t',
  'x'.repeat(70),
  '<!--',
  'a_',
  'a1@',
  '~/',
)
const hostileText = fc.array(hostileUnit, { maxLength: 600 }).map((units) => units.join(''))
const anyText = fc.oneof(
  hostileText,
  fc.string({ unit: 'binary', maxLength: 600 }),
  fc.string({ unit: 'grapheme', maxLength: 300 }),
)

t.test('every hostile body comes out within the bounds, changed by spaces only', async (t) => {
  for (const [name, body] of Object.entries({ ...HOSTILE_SEARCH_BODIES, ...HOSTILE_BODIES })) {
    const prepared = searchText(body)
    t.same(violations(prepared), [], `${name}: within the bounds`)
    t.equal(visible(prepared), visible(body), `${name}: the same text but for spaces`)
    t.ok(prepared.length <= 2 * body.length, `${name}: ${prepared.length} characters from ${body.length}`)
  }
})

t.test('any text comes out within the bounds, changed by spaces only', async (t) => {
  fc.assert(
    fc.property(anyText, (text) => {
      const prepared = searchText(text)
      return (
        violations(prepared).length === 0 && visible(prepared) === visible(text) && prepared.length <= 2 * text.length
      )
    }),
    { numRuns: 2000, seed: 14 },
  )
  t.pass('2000 texts')
})

t.test('text already within the bounds is left as it is, so it is indexed as before', async (t) => {
  const ordinary = [
    'The quick brown fox jumps over the lazy dog. It was a dark and stormy night; the rain fell in torrents.',
    'Write to jane.doe@example.com or see https://example.com/blog/2024/01/a-post?ref=home#top for details.',
    'Versions 1.2.3 and 10.0, the file /usr/local/bin/node, ~/notes.txt, well-known, e-mail, C++ & C#.',
    'a < b, x<3, 4 > 2, <= and => are not tags; &amp; &#39; &nbsp; are entities.',
    'Naïve café, Привет-мир, 中文文本, ελληνικά, עברית, emoji 😀 and combining e\u0301.',
    `${'x'.repeat(MAX_RUN)} ${'a_'.repeat(MAX_MARKS / 2)}`,
  ]
  for (const text of ordinary) t.equal(searchText(text), text, JSON.stringify(text.slice(0, 40)))
  fc.assert(
    fc.property(hostileText, (text) => violations(text).length > 0 || searchText(text) === text),
    { numRuns: 2000, seed: 14 },
  )
})

t.test('runs are cut after a mark where one is in reach, so words stay whole', async (t) => {
  const url = `https://example.com/${'segment/'.repeat(12)}end`
  const pieces = searchText(url).split(' ')
  t.ok(pieces.length > 1, 'a URL longer than a run is cut')
  t.ok(
    pieces.slice(0, -1).every((piece) => piece.endsWith('/')),
    'after a slash each time',
  )
  t.equal(
    searchText(`${'a'.repeat(MAX_RUN)}b`),
    `${'a'.repeat(MAX_RUN)} b`,
    'a word longer than a run is cut at the limit',
  )
  t.equal(
    searchText('x@example.com,y@example.org'),
    'x@example.com, y@example.org',
    'two addresses in one run are parted after the comma',
  )
  t.equal(searchText('<b>bold</b><!-- note -->'), ' b>bold /b> !-- note -->', 'tags and comments no longer open')
  t.equal(
    searchText(`a${'😀'.repeat(MAX_RUN)}`)
      .split(' ')
      .join(''),
    `a${'😀'.repeat(MAX_RUN)}`,
    'an emoji is never cut in two',
  )
})
