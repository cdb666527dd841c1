// Post slugs, as the spec's PostSlug says: derived from the title or chosen by the author, unique
// among all posts with the earlier slugs they keep, so that a link to an old slug never breaks
// while the post keeps it, and never leads to another post.
import { createHash } from 'node:crypto'
import { ApiError } from '../errors/api-error.ts'
import type { SlugWrites, StemmedSlug } from './post-slug-store.ts'
import { slugify } from './slug.ts'

/** Derived slugs are cut here, which leaves room for a `-<number>` within the 80 the spec allows. */
const DERIVED_MAX_LENGTH = 60
/** Earlier slugs a post keeps: a bound on post_slugs however often an author renames. */
export const EARLIER_SLUGS_KEPT = 10
/** `stem-<number>`: 1 to 9 digits, no leading zero (an int4, and `-07` is no number). */
const NUMBERED = /^(.+)-([1-9][0-9]{0,8})$/
const MAX_SUFFIX = 999_999_999
/**
 * Tries for a derived slug. A try is lost only to a write that took the same slug and committed
 * meanwhile; the last try adds a number from the post's id, which nobody else's can share.
 */
const TRIES = 6

export const stemmed = (slug: string): StemmedSlug => {
  const numbered = NUMBERED.exec(slug)
  return numbered ? { slug, stem: numbered[1]!, suffix: Number(numbered[2]) } : { slug, stem: slug, suffix: 1 }
}

const sha256Hex = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex')

/**
 * The slug a title yields: slugify's, or, for a title with nothing to spell in ASCII (Chinese,
 * emoji), `post-` and 8 hex digits of its SHA-256, the same for the same title (the migration
 * post_slugs gave existing posts theirs by this rule).
 */
export async function slugOfTitle(title: string): Promise<string> {
  return (await slugify(title, DERIVED_MAX_LENGTH)) || `post-${sha256Hex(title).slice(0, 8)}`
}

export const slugTaken = () =>
  new ApiError(409, 'POST_SLUG_TAKEN', 'Another post has this slug, or had it and still answers to it.', [
    { path: '/body/slug', message: 'leads to another post' },
  ])

/** The next numbered slug on `base`: after the highest number in use on it. */
async function numbered(writes: SlugWrites, postId: string, base: string, lastTry: boolean): Promise<string> {
  const next = ((await writes.topSuffix(base)) ?? 1) + 1
  // Past nine digits (someone chose `base-999999999`) or on the last try: a number nobody else's post has.
  if (lastTry || next > MAX_SUFFIX) return `${base}-${sha256Hex(postId).slice(0, 8)}`
  return `${base}-${next}`
}

/**
 * Gives a post just created (its row carries `slug`) its first slug: `slug` itself when chosen by
 * the author (409 when it leads to another post), else `slug` or the next numbered one free.
 */
export async function claimFirstSlug(writes: SlugWrites, postId: string, slug: string, chosen: boolean) {
  if (await writes.take(postId, stemmed(slug))) return slug
  if (chosen) throw slugTaken()
  for (let attempt = 1; attempt < TRIES; attempt++) {
    const candidate = await numbered(writes, postId, slug, attempt === TRIES - 1)
    if (await writes.take(postId, stemmed(candidate))) {
      await writes.setCurrent(postId, candidate)
      return candidate
    }
  }
  throw new Error(`no free slug on ${slug} after ${TRIES} tries`)
}

/**
 * Moves a post (its row locked by the write) to `slug`, chosen by its author: the current slug
 * stays as an earlier one while the post is published (links to it may exist), the oldest past
 * EARLIER_SLUGS_KEPT go. A post not published has no readers' links to keep: its current slug goes,
 * so that drafts cannot hoard slugs nobody sees. 409 when `slug` leads to another post.
 */
export async function changeSlug(
  writes: SlugWrites,
  post: { id: string; slug: string; published: boolean },
  slug: string,
) {
  if (slug === post.slug) return
  if (!(await writes.take(post.id, stemmed(slug)))) throw slugTaken()
  await writes.setCurrent(post.id, slug)
  if (!post.published) await writes.drop(post.id, post.slug)
  await writes.letGo(post.id, slug, EARLIER_SLUGS_KEPT)
}
