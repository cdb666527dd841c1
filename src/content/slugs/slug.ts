// Slugs of categories and posts: lower-case ASCII words joined by hyphens, as the spec's
// Category.slug and PostSlug patterns say. Made from a name or a title in time linear in its length.

export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/
const SLUG_MAX_LENGTH = 60

// Letters that Unicode decomposition does not reduce to ASCII, but that readers expect spelled out.
const SPELLED: Record<string, string> = { ß: 'ss', æ: 'ae', œ: 'oe', ø: 'o', đ: 'd', ð: 'd', þ: 'th', ł: 'l', ı: 'i' }

const NON_ASCII = /\P{ASCII}/u

/**
 * A character as Latin letters: its compatibility decomposition less its accents (`é` → `e`,
 * `ﬁ` → `fi`, `½` → `1⁄2`), or its spelling; null when that holds no ASCII letter or digit (`ж`,
 * `東`), which is then left for transliteration.
 */
function latin(char: string): string | null {
  const letters = char
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[ßæœøđðþłı]/g, (letter) => SPELLED[letter]!)
  return /[a-z0-9]/.test(letters) ? letters : null
}

// Loaded with the first text outside the Latin script: most instances never need its tables.
let transliterator: Promise<(text: string) => string> | undefined
const transliterate = () => (transliterator ??= import('@sindresorhus/transliterate').then((module) => module.default))

/**
 * Cuts a slug to `maxLength` characters, at a word boundary when one falls in the second half
 * (a long first word is cut inside instead of leaving a stub of a slug).
 */
export function cutSlug(slug: string, maxLength: number): string {
  if (slug.length <= maxLength) return slug
  const boundary = slug.lastIndexOf('-', maxLength)
  return (boundary >= maxLength / 2 ? slug.slice(0, boundary) : slug.slice(0, maxLength)).replace(/-+$/, '')
}

/**
 * The slug a name yields; '' when it has no letter or digit that can be written in ASCII (the
 * caller refuses it or falls back). Latin letters lose their accents; the letters of the scripts
 * @sindresorhus/transliterate knows (Cyrillic, Greek, Arabic, Armenian, Georgian, …) are
 * transliterated one by one; ideographs, emoji and the rest separate words.
 */
export async function slugify(name: string, maxLength = SLUG_MAX_LENGTH): Promise<string> {
  let text = name.normalize('NFC').replace(/\P{ASCII}/gu, (char) => latin(char) ?? char)
  if (NON_ASCII.test(text)) text = (await transliterate())(text)
  const slug = text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
  return cutSlug(slug, maxLength)
}
