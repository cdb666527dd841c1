// What counts as blank text: nothing a reader would see.
//
// Blank is text made only of
// - white space (Unicode White_Space: what String.prototype.trim removes, and U+0085),
// - default-ignorable code points (Unicode Default_Ignorable_Code_Point: zero-width space, non-joiner
//   and joiner U+200B–U+200D, word joiner and invisible operators U+2060–U+2064, U+FEFF, soft hyphen,
//   bidirectional marks, embeddings and isolates, Hangul fillers, variation selectors, tags), which
//   Unicode says render as nothing when a font has no glyph for them,
// - control characters (Cc), which render as nothing or as a box, never as text,
// - U+2800 BRAILLE PATTERN BLANK, a printable character that shows as a space and is the usual way to
//   post "empty" names where the others are refused.
// A character outside these makes the text not blank, wherever it stands: "👩‍💻" (joined by U+200D)
// or "a\u200b" are text. One anchored character class with no nested quantifier: linear.
const BLANK = /^[\p{White_Space}\p{Default_Ignorable_Code_Point}\p{Cc}\u2800]*$/u

export const isBlank = (text: string): boolean => BLANK.test(text)
