// Category slugs: lower-case ASCII words joined by hyphens, as the spec's Category.slug pattern says.

export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/
const SLUG_MAX_LENGTH = 60

// Letters that Unicode decomposition does not reduce to ASCII, but that readers expect spelled out.
const SPELLED: Record<string, string> = { ß: 'ss', æ: 'ae', œ: 'oe', ø: 'o', đ: 'd', ð: 'd', þ: 'th', ł: 'l', ı: 'i' }

/** The slug a name yields; '' when it has no ASCII letter or digit at all (the caller refuses it). */
export function slugify(name: string): string {
  return name
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[ßæœøđðþłı]/g, (letter) => SPELLED[letter]!)
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, SLUG_MAX_LENGTH)
    .replace(/-+$/, '')
}
