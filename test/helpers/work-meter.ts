// Counts the work a function does on strings, to show that a parser we did not write runs in time
// linear in its input without timing it (timings depend on the machine and its load; counts do
// not). While `measure` runs, the String and RegExp methods parsers read text with are wrapped:
// each adds what it reads to the count. charCodeAt and its kin read one character; a search
// (indexOf, includes, startsWith, ...) reads from where it starts to where it stops; a regular
// expression reads from where it starts to the end of its match (to the end of the text when it
// fails; one character when it is sticky or anchored at the start, which V8 tries at one place
// only); case mapping, trimming and splitting read the whole text.
//
// What it cannot see: backtracking inside one regular expression (a match that reads a span many
// times counts it once) and work in plain loops over arrays. Markdown-it and htmlparser2 read
// text through exactly these methods, so a parser that reads its input over and over (the
// quadratic pattern) shows as a count that grows faster than the input.

type Method = (this: unknown, ...args: unknown[]) => unknown

let count = 0
let active = false
/** Where each global regex started its last search (exec moves lastIndex before the cost is counted). */
const startOf = new WeakMap<RegExp, number>()

const lengthOf = (value: unknown) => (typeof value === 'string' ? value.length : String(value).length)

/** What a search from `from` that stopped at `found` (-1: not found) read of `text`. */
const searched = (text: string, from: number, found: number, needle = '') =>
  found === -1 ? Math.max(0, text.length - from) : found - from + needle.length

const costs: [object, string, (self: unknown, args: unknown[], result: unknown) => number][] = [
  [String.prototype, 'charCodeAt', () => 1],
  [String.prototype, 'codePointAt', () => 1],
  [String.prototype, 'charAt', () => 1],
  [String.prototype, 'at', () => 1],
  [
    String.prototype,
    'indexOf',
    (self, [needle, from], found) =>
      searched(String(self), Math.max(0, Number(from ?? 0) || 0), found as number, String(needle)),
  ],
  [String.prototype, 'lastIndexOf', (self) => lengthOf(self)],
  [String.prototype, 'includes', (self) => lengthOf(self)],
  [String.prototype, 'startsWith', (_self, [needle]) => lengthOf(needle)],
  [String.prototype, 'endsWith', (_self, [needle]) => lengthOf(needle)],
  // A slice is a view of its text in V8 (a sliced string, or a copy of under 13 characters), not a
  // copy: it costs one, and its characters count when something reads them.
  [String.prototype, 'slice', () => 1],
  [String.prototype, 'substring', () => 1],
  [String.prototype, 'substr', () => 1],
  [String.prototype, 'trim', (self) => lengthOf(self)],
  [String.prototype, 'trimStart', (self) => lengthOf(self)],
  [String.prototype, 'trimEnd', (self) => lengthOf(self)],
  [String.prototype, 'toLowerCase', (self) => lengthOf(self)],
  [String.prototype, 'toUpperCase', (self) => lengthOf(self)],
  [String.prototype, 'normalize', (self) => lengthOf(self)],
  [String.prototype, 'split', (self) => lengthOf(self)],
  [String.prototype, 'repeat', (_self, _args, result) => lengthOf(result)],
  [String.prototype, 'padStart', (_self, _args, result) => lengthOf(result)],
  [
    RegExp.prototype,
    'exec',
    (self, [text], result) => {
      const regex = self as RegExp
      const match = result as RegExpExecArray | null
      // A sticky regex, or one anchored at the start of the text, is tried at one place only.
      if (regex.sticky || (regex.source.startsWith('^') && !regex.multiline)) return (match?.[0].length ?? 0) + 1
      // Others search from where they start (lastIndex, for a global one) to the end of the match.
      const start = regex.global ? (startOf.get(regex) ?? 0) : 0
      return (match === null ? String(text).length : match.index + match[0].length) - start + 1
    },
  ],
]

/** Runs `work` and returns its result with the string work it did. */
export function measure<T>(work: () => T): { result: T; work: number } {
  if (active) throw new Error('measure does not nest')
  const originals = costs.map(([owner, name]) => (owner as Record<string, Method>)[name]!)
  costs.forEach(([owner, name, cost], i) => {
    const original = originals[i]!
    ;(owner as Record<string, Method>)[name] = function (this: unknown, ...args: unknown[]) {
      if (this instanceof RegExp) startOf.set(this, this.lastIndex)
      const result = original.apply(this, args)
      if (active) {
        // The cost functions call wrapped methods themselves: those calls are not the parser's.
        active = false
        count += cost(this, args, result)
        active = true
      }
      return result
    }
  })
  count = 0
  active = true
  try {
    const result = work()
    return { result, work: count }
  } finally {
    active = false
    costs.forEach(([owner, name], i) => {
      ;(owner as Record<string, Method>)[name] = originals[i]!
    })
  }
}
