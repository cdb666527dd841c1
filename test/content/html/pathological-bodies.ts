// Bodies built to make a Markdown parser or an HTML sanitizer work hard, each of exactly n
// characters: what known quadratic (or worse) inputs to CommonMark parsers look like, and what
// makes rendered HTML much longer than its Markdown. Used by pathological.test.ts.

const lines = (count: number, line: (i: number) => string) =>
  Array.from({ length: count }, (_, i) => line(i)).join('\n')

const FAMILIES: Record<string, (n: number) => string> = {
  // Brackets: link labels opened and never closed, closed and never opened, nested.
  'open brackets': (n) => '['.repeat(n),
  'open image brackets': (n) => '!['.repeat(n),
  'close brackets': (n) => ']'.repeat(n),
  'nested links': (n) => '['.repeat(n / 2) + 'a' + '](b)'.repeat(n / 8),
  'nested images': (n) => '!['.repeat(n / 4) + '](x)'.repeat(n / 8),
  'bracket then paren': (n) => '[a]('.repeat(n),
  'unclosed link titles': (n) => '[a](b "'.repeat(n),
  'reference definitions': (n) => '[a]: <'.repeat(n),
  // Backticks and code.
  backticks: (n) => '`'.repeat(n),
  'backtick runs of every length': (n) => Array.from({ length: n }, (_, i) => '`'.repeat((i % 40) + 1) + 'a').join(''),
  'unclosed fences': (n) => '```\n'.repeat(n),
  // Nesting: quotes and lists, on one line and over many.
  'quote markers': (n) => '>'.repeat(n),
  'quote lines': (n) => '> '.repeat(n),
  'deep quotes again and again': (n) => ('>'.repeat(30) + ' a\n\n').repeat(n),
  'list markers': (n) => '- '.repeat(n),
  'ordered list markers': (n) => '1. '.repeat(n),
  'indented lists': (n) => lines(n, (i) => '  '.repeat(i % 200) + '- a'),
  'deep lists again and again': (n) => ('- '.repeat(30) + 'a\n\n').repeat(n),
  'tabs in lists': (n) => lines(n, (i) => '\t'.repeat(i % 50) + '* a'),
  // Emphasis delimiters.
  stars: (n) => '*'.repeat(n),
  'star and letter': (n) => '*a'.repeat(n),
  'underscore and letter': (n) => '_a'.repeat(n),
  'strong openers': (n) => '**a'.repeat(n),
  'mixed delimiters': (n) => '*_'.repeat(n),
  'delimiter runs of every length': (n) =>
    Array.from({ length: n }, (_, i) => '*'.repeat((i % 30) + 1) + 'a').join(' '),
  // Raw HTML and entities (shown as text), autolinks.
  'less-than signs': (n) => '<'.repeat(n),
  'tag openers': (n) => '<a'.repeat(n),
  'html blocks': (n) => '<div>'.repeat(n),
  'comment openers': (n) => '<!--'.repeat(n),
  ampersands: (n) => '&'.repeat(n),
  'numeric entity openers': (n) => '&#'.repeat(n),
  'autolink openers': (n) => '<http://'.repeat(n),
  'email autolinks': (n) => '<a@b.c>'.repeat(n),
  // Tables: many columns, many rows each padded to them.
  'wide table, short rows': (n) => wideTable(n / 8, n),
  'pipes only': (n) => '|'.repeat(n),
  // Headings and other blocks.
  headings: (n) => '#\n'.repeat(n),
  'setext headings': (n) => 'a\n=\n'.repeat(n),
  'thematic breaks': (n) => '***\n'.repeat(n),
  'escaped brackets': (n) => '\\['.repeat(n),
  // Output longer than input: a long reference used again and again.
  'long reference used again and again': (n) => `[a]: http://${'x'.repeat(n / 2)}\n\n${'[a]'.repeat(n)}`,
}

/** A table of `columns` one-letter columns and `rows` one-cell rows: the costliest body found to render. */
export function wideTable(columns: number, rows: number) {
  return '|a'.repeat(columns) + '|\n' + '|-'.repeat(columns) + '|\n' + 'x\n'.repeat(rows)
}

/** Each family's body of exactly `n` characters. */
export const pathologicalBodies = (n: number): [string, string][] =>
  Object.entries(FAMILIES).map(([name, make]) => [name, make(n).slice(0, n)])

/** The family whose HTML grows faster than its body, for the test of the bound that stops it. */
export const blowUp = (n: number) => FAMILIES['long reference used again and again']!(n).slice(0, n)
