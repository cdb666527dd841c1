// A post's excerpt: the first words of its Markdown body as plain text, cut at a word boundary.
//
// The body is anyone's text (up to 100 000 characters), so deriving its excerpt must cost time
// linear in its length whatever it holds. Regexes with an unbounded search after each opening
// bracket took quadratic time on "![" × 50 000 (seconds with the event loop blocked). Here each
// step of the old regex pipeline is one hand-written pass with the same result on every input
// (test/content/posts/excerpt.test.ts checks them against each other), and every search for a closing
// character resumes where the previous one stopped, so each pass reads each character a bounded
// number of times. The passes count the characters they read: that count is the proof of the
// bound, and tests assert it instead of timing anything.
//
// Not bounded to a prefix of the body: a fence or image opened at the start is removed only when it
// is closed somewhere later, so the meaning of the excerpt depends on the whole body; the schema's
// maxLength already bounds the whole.

const EXCERPT_LENGTH = 280

/** Characters read so far by the passes. */
interface Meter {
  steps: number
}

/** JavaScript's `\s` (and what `String.prototype.trim` removes). */
const isSpace = (code: number) =>
  code === 0x20 ||
  (code >= 0x09 && code <= 0x0d) ||
  code === 0xa0 ||
  code === 0x1680 ||
  (code >= 0x2000 && code <= 0x200a) ||
  code === 0x2028 ||
  code === 0x2029 ||
  code === 0x202f ||
  code === 0x205f ||
  code === 0x3000 ||
  code === 0xfeff

/** What ends a line for `^` in a multiline regex. */
const isLineEnd = (code: number) => code === 0x0a || code === 0x0d || code === 0x2028 || code === 0x2029

const isDigit = (code: number) => code >= 0x30 && code <= 0x39

/**
 * The first index at or after `from` holding `char`, -1 when none, for calls with `from` never
 * decreasing: the answer of the last call stands while it lies ahead, so every character is read
 * at most once over all calls.
 */
function finder(text: string, char: string, meter: Meter) {
  let found = -2
  return (from: number): number => {
    if (found === -1 || found >= from) return found
    found = text.indexOf(char, from)
    meter.steps += (found === -1 ? text.length : found + 1) - from
    return found
  }
}

/** /```[\s\S]*?```/g → ' ': once an opening fence has no closing one, no later one has either. */
function removeFences(text: string, meter: Meter): string {
  const parts: string[] = []
  let copied = 0
  for (let i = text.indexOf('```'); i !== -1;) {
    meter.steps += i - copied
    const close = text.indexOf('```', i + 3)
    meter.steps += (close === -1 ? text.length : close + 3) - i
    if (close === -1) break
    parts.push(text.slice(copied, i), ' ')
    copied = close + 3
    i = text.indexOf('```', copied)
  }
  parts.push(text.slice(copied))
  return parts.join('')
}

/**
 * `[text](destination)` with no `]` in the text and no `)` in the destination, opened at each
 * `opener` in turn: `!` + `[` for images (replaced by ' '), `[` for links (replaced by their text).
 */
function replaceBracketed(text: string, image: boolean, meter: Meter): string {
  const nextBracket = finder(text, ']', meter)
  const nextParen = finder(text, ')', meter)
  const parts: string[] = []
  let copied = 0
  const start = image ? 2 : 1
  const opener = image ? '![' : '['
  for (let i = text.indexOf(opener); i !== -1; i = text.indexOf(opener, i + 1)) {
    const bracket = nextBracket(i + start)
    if (bracket === -1) break
    if (text[bracket + 1] !== '(') continue
    const paren = nextParen(bracket + 2)
    if (paren === -1) break
    parts.push(text.slice(copied, i), image ? ' ' : text.slice(i + 1, bracket))
    copied = paren + 1
    i = paren
  }
  // The searches for openers read each character once more.
  meter.steps += text.length
  parts.push(text.slice(copied))
  return parts.join('')
}

/**
 * The length of the block marker that /^\s{0,3}(#{1,6}|>|[-*+]|\d+\.)\s+/m matches at `at` (a line
 * start), 0 when none. Only the longest runs can match (a shorter one is followed by a character
 * that is not the next part), so no choice is ever revisited.
 */
function markerLength(text: string, at: number, meter: Meter): number {
  let i = at
  while (i < text.length && i - at <= 3 && isSpace(text.charCodeAt(i))) i++
  meter.steps += i - at + 1
  if (i - at > 3) return 0
  const first = text.charCodeAt(i)
  let end: number
  if (first === 0x23 /* # */) {
    end = i
    while (end < text.length && text[end] === '#' && end - i <= 6) end++
    if (end - i > 6) return 0
  } else if (first === 0x3e /* > */ || first === 0x2d /* - */ || first === 0x2a /* * */ || first === 0x2b /* + */) {
    end = i + 1
  } else if (isDigit(first)) {
    end = i
    while (end < text.length && isDigit(text.charCodeAt(end))) end++
    if (text[end] !== '.') return 0
    end++
  } else {
    return 0
  }
  meter.steps += end - i
  if (!isSpace(text.charCodeAt(end))) return 0
  while (end < text.length && isSpace(text.charCodeAt(end))) end++
  meter.steps += end - i
  return end - at
}

/** Block markers at line starts (headings, quotes, list items), as the multiline regex removed them. */
function removeBlockMarkers(text: string, meter: Meter): string {
  const parts: string[] = []
  let copied = 0
  for (let i = 0; i < text.length; i++) {
    meter.steps++
    if (i !== 0 && !isLineEnd(text.charCodeAt(i - 1))) continue
    const length = markerLength(text, i, meter)
    if (length === 0) continue
    parts.push(text.slice(copied, i))
    copied = i + length
    // The regex resumed at the end of its match, where a new line may start at once.
    i = copied - 1
  }
  parts.push(text.slice(copied))
  return parts.join('')
}

/**
 * Inline syntax characters dropped, white space runs made one space, the ends trimmed; only as far
 * as the excerpt needs: a character more than its length tells that it must be cut.
 */
function plainText(text: string, meter: Meter): string {
  let out = ''
  let kept = -1 // start of the run of characters kept as they are, -1 when none is open
  let pendingSpace = false
  const close = (end: number) => {
    if (kept !== -1) out += text.slice(kept, end)
    kept = -1
  }
  let i = 0
  for (; i < text.length && out.length <= EXCERPT_LENGTH; i++) {
    meter.steps++
    const code = text.charCodeAt(i)
    if (code === 0x2a || code === 0x5f || code === 0x60 || code === 0x7e) {
      close(i) // * _ ` ~
    } else if (isSpace(code)) {
      close(i)
      pendingSpace = true
    } else if (kept === -1) {
      if (pendingSpace && out !== '') out += ' '
      pendingSpace = false
      kept = i
    }
  }
  close(i)
  return out
}

/** The excerpt and the number of characters read to derive it (at most 16 per body character). */
export function scanExcerpt(markdown: string): { excerpt: string; steps: number } {
  const meter: Meter = { steps: 0 }
  let text = removeFences(markdown, meter)
  text = replaceBracketed(text, true, meter)
  text = replaceBracketed(text, false, meter)
  text = removeBlockMarkers(text, meter)
  text = plainText(text, meter)
  if (text.length <= EXCERPT_LENGTH) return { excerpt: text, steps: meter.steps }
  const cut = text.slice(0, EXCERPT_LENGTH)
  const space = cut.lastIndexOf(' ')
  // Cut inside a word: not between the two halves of a character beyond the BMP (an emoji), which
  // would be stored as U+FFFD.
  const word = /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut
  return { excerpt: `${space > 0 ? cut.slice(0, space) : word}…`, steps: meter.steps }
}

/** The first words of the body as plain text: Markdown syntax removed, cut at a word boundary. */
export const deriveExcerpt = (markdown: string): string => scanExcerpt(markdown).excerpt
