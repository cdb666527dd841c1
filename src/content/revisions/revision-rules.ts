// What a revision records and when: the content of a post after a write, compared with the post
// as that write found it; nothing is written when the write changed no content field (an update
// that changes nothing, or only what revisions do not record: html, comments, media shown). What
// changed between writes without a revision (a category deleted moves its posts to the default
// one) is in the next revision's content but not among its changed fields. Pure: no I/O.
import type { components } from '../../generated/api.ts'
import type { PostRecord } from '../posts/post-store.ts'

export type RevisionField = components['schemas']['RevisionField']

/** The spec's order of RevisionField: `changed` lists fields in it. */
export const REVISION_FIELDS = [
  'title',
  'body',
  'excerpt',
  'slug',
  'categories',
  'status',
  'publishedAt',
  'thumbnail',
] as const satisfies readonly RevisionField[]

/** A revision to insert: the post's content after the write, and what it changed. */
export interface RevisionContent {
  changed: RevisionField[]
  title: string
  body: string
  excerpt: string
  slug: string
  status: string
  publishedAt: Date | null
  categoryIds: string[]
  thumbnail: { key: string; width: number }[]
  byteSize: number
}

const sameList = (a: string[], b: string[]) => a.length === b.length && a.every((item, index) => item === b[index])

/** The post's content as a revision records it. */
export function contentOf(post: PostRecord): Omit<RevisionContent, 'changed'> {
  const categoryIds = post.categories
    .map(({ category }) => category?.id ?? '')
    .filter((id) => id !== '')
    .sort()
  const thumbnail = post.thumbnail.map(({ image, width }) => ({ key: image.key, width }))
  const byteSize = Buffer.byteLength(post.title) + Buffer.byteLength(post.body) + Buffer.byteLength(post.excerpt)
  return {
    title: post.title,
    body: post.body,
    excerpt: post.excerpt,
    slug: post.slug,
    status: post.status,
    publishedAt: post.publishedAt,
    categoryIds,
    thumbnail,
    byteSize,
  }
}

const thumbnailOf = (content: Omit<RevisionContent, 'changed'>) =>
  content.thumbnail.map(({ key, width }) => `${key}:${width}`).sort()

/**
 * The fields a write changed: `after`, the post as it left it, against `before`, the post as it
 * found it (every field for a new post), in REVISION_FIELDS's order.
 */
export function changedFields(
  before: Omit<RevisionContent, 'changed'> | null,
  after: Omit<RevisionContent, 'changed'>,
): RevisionField[] {
  if (before === null) return [...REVISION_FIELDS]
  const differs: Record<RevisionField, boolean> = {
    title: before.title !== after.title,
    body: before.body !== after.body,
    excerpt: before.excerpt !== after.excerpt,
    slug: before.slug !== after.slug,
    categories: !sameList(before.categoryIds, after.categoryIds),
    status: before.status !== after.status,
    publishedAt: (before.publishedAt?.getTime() ?? null) !== (after.publishedAt?.getTime() ?? null),
    thumbnail: !sameList(thumbnailOf(before), thumbnailOf(after)),
  }
  return REVISION_FIELDS.filter((field) => differs[field])
}
