// The rules that decide, from a comment's text and its author, whether it waits for approval, and
// the fingerprint the duplicate check compares. Pure: the store applies them under its locks.
import { createHash } from 'node:crypto'
import type { components } from '../../generated/api.ts'

/** The spec's statuses, the database enum's values: services stay off Prisma's types. */
type CommentStatus = components['schemas']['CommentStatus']

export type CommentModeration = 'off' | 'first-time' | 'all'

/**
 * A link is each `http://`, `https://` or `www.`, in any case; `https://www.` is one link, not two
 * (the optional `www.` is consumed with its scheme). One left-to-right scan of fixed-length
 * alternatives: linear in the text, whatever it holds.
 */
const LINK = /https?:\/\/(?:www\.)?|www\./gi

export function countLinks(text: string): number {
  let links = 0
  LINK.lastIndex = 0
  while (LINK.exec(text) !== null) links++
  return links
}

/** Unicode format characters (zero-width space and joiners, soft hyphen, bidi marks, BOM): invisible. */
const FORMAT = /\p{Cf}/gu
/** Unicode white space (JavaScript's \s, which misses NEL). */
const SPACE = /[\s\u0085]+/gu

/**
 * The text the duplicate check compares: format characters dropped, NFKC (compatibility forms such
 * as ligatures and full-width letters become the plain ones), case-folded (upper- then lower-cased,
 * so `ß` is `ss`, JavaScript having no case fold of its own), NFKC again (as NFKC_Casefold does),
 * each run of white space made one space, the ends trimmed. `fir\u200bst`, `FIRST` and `ﬁrst` are
 * `first`. Each step is one pass over the text: linear, whatever it holds.
 */
export const normalizeForDuplicates = (body: string) =>
  body.replace(FORMAT, '').normalize('NFKC').toUpperCase().toLowerCase().normalize('NFKC').replace(SPACE, ' ').trim()

/**
 * The duplicate check's fingerprint: SHA-256 (hex) of the normalized body (`normalizeForDuplicates`).
 * Comments stored before this normalization keep the hash they were stored with (white space only):
 * a new comment matches an older one only where both normalize alike, e.g. plain lower-case text.
 */
export const bodyHash = (body: string) => createHash('sha256').update(normalizeForDuplicates(body)).digest('hex')

export interface Author {
  /**
   * Admins, and a post's author on their own post: never held, by any rule (links and `all` too):
   * the author can put the same links in the post's body, which nobody moderates.
   */
  trusted: boolean
  /**
   * Whether the author has an approved comment: published on somebody else's post (asked only when
   * the policy needs it). Their own comments on their own posts do not count.
   */
  hasPublished: () => Promise<boolean>
}

/** The status a new comment starts in. */
export async function initialStatus(
  moderation: CommentModeration,
  tooManyLinks: boolean,
  author: Author,
): Promise<CommentStatus> {
  if (author.trusted) return 'published'
  if (tooManyLinks || moderation === 'all') return 'pending'
  if (moderation === 'first-time' && !(await author.hasPublished())) return 'pending'
  return 'published'
}
