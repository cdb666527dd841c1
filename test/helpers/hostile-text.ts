// Text that makes backtracking regexes and naive parsers crawl: the shapes issue 14 names.

/** Bodies at the spec's maxLength (100 000 characters) that make backtracking regexes crawl. */
export const HOSTILE_LENGTH = 100_000
const N = HOSTILE_LENGTH
const fill = (unit: string) => unit.repeat(Math.floor(N / unit.length))
export const HOSTILE_BODIES: Record<string, string> = {
  'unclosed images': fill('!['),
  'unclosed brackets': fill('['),
  'bracket-paren pairs': fill(']('),
  'empty links without end': fill('[]('),
  'links without end': fill('[a]('),
  'images without end': fill('![a]('),
  backticks: fill('`'),
  'unclosed fences': fill('```') + 'x',
  'fences with text': fill('```a'),
  'emphasis runs': fill('*_'),
  'white space run': `${' '.repeat(N - 2)}x`,
  'white lines': `${'\n '.repeat(N / 2 - 1)}x`,
  'nested quotes': fill('> '),
  'nested lists': fill('- '),
  'digits without dot': `\n${'1'.repeat(N - 1)}`,
  'indented digits': fill('\n   1'),
  'headings too deep': fill('####### '),
}

/**
 * Bodies of HOSTILE_LENGTH characters on which PostgreSQL's text-search parser (to_tsvector) read
 * ahead from every token to the end of the text (measured before src/content/search/search-text.ts, on
 * PostgreSQL 15, at 20 000 characters unless said): host names that never get their domain
 * (`a_`: 2.2 s; 77 s at 100 000 characters), e-mail addresses nested in one another (`a1@`: 2.4 s
 * at 8 000; "stack depth limit exceeded" at 100 000), comments that never close (`<!--`: 15 s at
 * 100 000; with spaces in it, `<!-- a `: 0.26 s at 14 000), file paths (`~/`, `/.`).
 */
export const HOSTILE_SEARCH_BODIES: Record<string, string> = {
  'host names without domain': fill('a_'),
  'host names of digits': fill('1_'),
  'hyphenated host names': fill('a-1_'),
  'nested e-mail addresses': fill('a1@'),
  'unclosed comments': fill('<!--'),
  'unclosed comments with spaces': fill('<!-- a '),
  'home paths': fill('~/'),
  'dotted paths': fill('/.'),
}
