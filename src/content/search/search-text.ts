// The text a post is indexed by: its title and body, prepared so that PostgreSQL's text-search
// parser reads it in time linear in its length.
//
// The default parser (wparser_def.c) tries the long constructs it knows (host names, e-mail
// addresses, URLs, file paths, XML tags and comments) by reading ahead from where a token starts;
// when the construct does not complete, it gives the token up and starts again one token further.
// On text where nothing completes, every start reads to the end: PostgreSQL 15 took 77 s on
// `a_` × 50 000 (a host name that never gets its domain), 15 s on `<!--` × 25 000 (a comment that
// never closes), and `a1@` × 33 331 nests one e-mail address in the next until "stack depth limit
// exceeded". PGlite is slower still, and runs on the event loop.
//
// What bounds every read-ahead here:
// - White space (ASCII) ends every construct but tags and comments, so the parser reads no further
//   than the end of a run of characters without it. A run is cut (a space inserted) before it holds
//   more than MAX_RUN characters, more than MAX_MARKS characters that are no letter or digit (each
//   can start a token, and each token start can read to the end of the run), or a second `@` (each
//   `@` nests one more e-mail address). Where the run holds a mark in reach, the cut goes after
//   it, so a word stays whole.
// - Tags and comments are the only constructs that read across white space, and only a `<` before
//   a letter or one of / ! ? : _ opens them: such a `<` becomes a space. A tag's or comment's
//   words are then indexed as text, where the parser used to skip them.
// Text within those bounds — ordinary prose, and words, URLs and addresses of usual length — is
// passed on unchanged, so it is indexed exactly as before.

/** The longest run of characters without white space that reaches the parser. */
export const MAX_RUN = 64
/** The most characters that are no letter or digit in one run. */
export const MAX_MARKS = 16

/** A run of characters without ASCII white space: what ends every construct but tags and comments. */
const RUN = /[^ \n\t\r\f\v]+/g
/** Letters, combining marks and ASCII digits continue a token; anything else may start one. */
const isWordChar = (char: string) =>
  (char >= 'a' && char <= 'z') ||
  (char >= 'A' && char <= 'Z') ||
  (char >= '0' && char <= '9') ||
  (char > '\u007f' && /[\p{L}\p{M}]/u.test(char))
/** A `<` the parser would read as the start of a tag or comment (one character of lookahead). */
const TAG_OPENER = /<(?=[A-Za-z/!?:_])/g

/** One run, cut by spaces into pieces within the bounds. */
function cutRun(text: string): string {
  const pieces: string[] = []
  // The current piece in code points (a surrogate pair is never cut), where it may be cut, what it holds.
  let piece: string[] = []
  let lastMark = -1
  let marks = 0
  let atSign = -1
  const cut = (at: number) => {
    pieces.push(piece.slice(0, at).join(''))
    piece = piece.slice(at)
    // What stays is the piece after its last mark (so no mark, no `@`), or nothing.
    lastMark = -1
    marks = 0
    atSign = -1
  }
  for (const char of text) {
    const mark = !isWordChar(char)
    if (char === '@' && atSign !== -1) cut(lastMark > atSign ? lastMark + 1 : piece.length)
    else if (mark && marks === MAX_MARKS) cut(piece.length)
    else if (piece.length === MAX_RUN) cut(lastMark + 1 >= MAX_RUN / 2 ? lastMark + 1 : MAX_RUN)
    piece.push(char)
    if (mark) {
      lastMark = piece.length - 1
      marks++
    }
    if (char === '@') atSign = piece.length - 1
  }
  pieces.push(piece.join(''))
  return pieces.join(' ')
}

/** Runs this short, with one `@` at most, are within the bounds as they are (the common case). */
const fits = (run: string) => run.length <= MAX_MARKS && run.indexOf('@') === run.lastIndexOf('@')

export function searchText(text: string): string {
  return text.replace(TAG_OPENER, ' ').replace(RUN, (run) => (fits(run) ? run : cutRun(run)))
}
