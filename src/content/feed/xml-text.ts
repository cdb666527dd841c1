// Text written into XML 1.0 so that any parser reads back exactly what was written, less the
// characters XML 1.0 cannot carry at all (its Char production: C0 controls other than tab, line
// feed and carriage return, U+FFFE, U+FFFF, and surrogates without their pair), which are left out:
// not even a character reference may stand for them. One pass of one character class per string
// (the `u` flag makes a surrogate pair one character, so only unpaired halves match): linear time.

// Matching control characters is the point here.
/* eslint-disable no-control-regex */
const TEXT = /[&<>\r\0-\x08\x0B\x0C\x0E-\x1F\uD800-\uDFFF\uFFFE\uFFFF]/gu
const ATTRIBUTE = /[&<>"\t\n\r\0-\x08\x0B\x0C\x0E-\x1F\uD800-\uDFFF\uFFFE\uFFFF]/gu
/* eslint-enable no-control-regex */

const REPLACEMENTS: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  // Only `]]>` needs it; all of them, so that no split of the text can form one.
  '>': '&gt;',
  '"': '&quot;',
  // Parsers turn a raw carriage return into a line feed, and raw tabs and line breaks in an
  // attribute into spaces; a character reference is read back as the character itself.
  '\r': '&#13;',
  '\t': '&#9;',
  '\n': '&#10;',
}

const replace = (character: string) => REPLACEMENTS[character] ?? ''

/** `text` as the content of an element. */
export const xmlText = (text: string) => text.replace(TEXT, replace)

/** `text` as an attribute's value between double quotes. */
export const xmlAttribute = (text: string) => text.replace(ATTRIBUTE, replace)
