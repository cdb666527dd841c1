// Search text for PostgreSQL's websearch_to_tsquery, made safe to parse.
//
// Where a word may start, the parser reads every `-` as a NOT and stacks them until the word comes,
// skipping white space and the characters ! & | ( ) < between them; a stack of more than 32 fails
// the query ("tsquery stack too small", SQLSTATE XX000), so `?q=` with 40 hyphens in a row was a
// 500. Two NOTs cancel out, so a run too long for the stack is cut to one `-` or two (what follows
// stays a word to negate, not an operator such as `or`).
// Shorter runs, and everything else, are passed on exactly as written. Linear in the text.

/** More NOTs in one run than this are cut to one or two; half of PostgreSQL's stack of 32. */
const MAX_NOTS = 16

/** What the parser skips between NOTs (checked against PostgreSQL: any other character ends the run). */
const isGap = (char: string) =>
  char === '-' ||
  char === '!' ||
  char === '&' ||
  char === '|' ||
  char === '(' ||
  char === ')' ||
  char === '<' ||
  /\s/.test(char)

/** The run without its hyphens but the first `keep`. */
function dropHyphens(run: string, keep: number): string {
  let kept = 0
  let out = ''
  for (const char of run) if (char !== '-' || kept++ < keep) out += char
  return out
}

export function safeSearchText(text: string): string {
  let out = ''
  let inWord = false
  let i = 0
  while (i < text.length) {
    const char = text[i]!
    // Hyphens inside a word (e-mail, x--y) are part of it, not NOTs.
    if (!isGap(char) || (inWord && char === '-')) {
      out += char
      inWord = char !== '"'
      i++
      continue
    }
    let end = i
    let nots = 0
    while (end < text.length && isGap(text[end]!)) if (text[end++] === '-') nots++
    const run = text.slice(i, end)
    out += nots > MAX_NOTS ? dropHyphens(run, 2 - (nots % 2)) : run
    inWord = false
    i = end
  }
  return out
}
