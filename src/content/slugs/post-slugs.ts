// Post slugs, as the spec's PostSlug says: derived from the title or chosen by the author. A slug is
// claimed when its post is published: published posts' slugs, with the earlier ones they keep, are
// unique among all posts (post_slugs), so that a link never breaks while the post keeps the slug,
// and never leads to another post. An unpublished post claims nothing: its slug is unique only
// among its author's own posts, so nobody else's answer (the slug they get, a 409) can depend on
// whether someone's draft has a slug. Its slug is claimed when it is published; when a published
// post took it meanwhile, it gets the next numbered one, as a derived slug does.
import { createHash } from 'node:crypto'
import { ApiError } from '../../errors/api-error.ts'
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

/** The message names no kind of post: a published one, or one of the caller's own (nobody else's draft). */
export const slugTaken = () =>
  new ApiError(409, 'POST_SLUG_TAKEN', 'Another post has this slug, or had it and still answers to it.', [
    { path: '/body/slug', message: 'leads to another post' },
  ])

/** The post whose slug is set: its author's other posts are the ones an unpublished post must not share it with. */
export interface SlugHolder {
  id: string
  authorId: string
  /** The current slug (as its row has it). */
  slug: string
}

/**
 * Whether the post may have `slug`, and, when `claim`, claims it: free when no other post claims it
 * and no other unpublished post of the author has it. Other authors' unpublished posts never count.
 */
async function tryTake(writes: SlugWrites, post: SlugHolder, slug: string, claim: boolean): Promise<boolean> {
  if (await writes.heldByOwnDraft(post.authorId, post.id, slug)) return false
  return claim ? writes.take(post.id, stemmed(slug)) : !(await writes.claimedByAnother(post.id, slug))
}

/** The next numbered slug on `base`: after the highest number in use on it, by claims and by the author's own unpublished posts. */
async function numbered(writes: SlugWrites, post: SlugHolder, base: string, lastTry: boolean): Promise<string> {
  const own = (await writes.ownDraftSlugsOn(post.authorId, base))
    .map((slug) => stemmed(slug))
    .filter((s) => s.stem === base)
  const top = Math.max((await writes.topSuffix(base)) ?? 1, ...own.map((s) => s.suffix))
  const next = top + 1
  // Past nine digits (someone chose `base-999999999`) or on the last try: a number nobody else's post has.
  if (lastTry || next > MAX_SUFFIX) return `${base}-${sha256Hex(post.id).slice(0, 8)}`
  return `${base}-${next}`
}

/**
 * Gives a post `slug`, chosen by its author (409 when it is not free for them) or not (then `slug`
 * or the next numbered one free): at creation, and when a post is published (`claim`: the slug is
 * claimed for good). Answers the slug the post has now.
 */
export async function settleSlug(writes: SlugWrites, post: SlugHolder, slug: string, chosen: boolean, claim: boolean) {
  await writes.lockAuthor(post.authorId)
  let candidate = slug
  for (let attempt = 1; !(await tryTake(writes, post, candidate, claim)); attempt++) {
    if (chosen) throw slugTaken()
    if (attempt === TRIES) throw new Error(`no free slug on ${slug} after ${TRIES} tries`)
    candidate = await numbered(writes, post, slug, attempt === TRIES - 1)
  }
  if (candidate !== post.slug) await writes.setCurrent(post.id, candidate)
  return candidate
}

/**
 * Moves a post (its row locked by the write) to `slug`, chosen by its author: for a published post
 * the current slug stays claimed as an earlier one (links to it may exist), the oldest past
 * EARLIER_SLUGS_KEPT go. An unpublished post claims nothing, so it only has to be free for it. 409
 * when `slug` is not free for this post.
 */
export async function changeSlug(writes: SlugWrites, post: SlugHolder & { published: boolean }, slug: string) {
  if (slug === post.slug) return
  await writes.lockAuthor(post.authorId)
  if (!(await tryTake(writes, post, slug, post.published))) throw slugTaken()
  await writes.setCurrent(post.id, slug)
  if (post.published) await writes.letGo(post.id, slug, EARLIER_SLUGS_KEPT)
}
