// What a revision records and when: the content of a post after a write, compared with the
// newest revision's; nothing is written when no content field changed (an update that changes
// nothing, or only what revisions do not record: html, comments, media shown). Pure: no I/O.
import { createHash } from 'node:crypto'
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

/** The newest revision as compared: the body by its hash, the thumbnail as sorted `key:width`. */
export interface RevisionFingerprint {
  number: number
  title: string
  bodyHash: string
  excerpt: string
  slug: string
  status: string
  publishedAt: Date | null
  categoryIds: string[]
  thumbnail: string[]
}

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

/** The post's content as a revision would record it, and its fingerprint. */
export function contentOf(post: PostRecord): {
  content: Omit<RevisionContent, 'changed'>
  print: Omit<RevisionFingerprint, 'number'>
} {
  const categoryIds = post.categories
    .map(({ category }) => category?.id ?? '')
    .filter((id) => id !== '')
    .sort()
  const thumbnail = post.thumbnail.map(({ image, width }) => ({ key: image.key, width }))
  const byteSize = Buffer.byteLength(post.title) + Buffer.byteLength(post.body) + Buffer.byteLength(post.excerpt)
  return {
    content: {
      title: post.title,
      body: post.body,
      excerpt: post.excerpt,
      slug: post.slug,
      status: post.status,
      publishedAt: post.publishedAt,
      categoryIds,
      thumbnail,
      byteSize,
    },
    print: {
      title: post.title,
      bodyHash: createHash('sha256').update(post.body, 'utf8').digest('hex'),
      excerpt: post.excerpt,
      slug: post.slug,
      status: post.status,
      publishedAt: post.publishedAt,
      categoryIds,
      thumbnail: thumbnail.map(({ key, width }) => `${key}:${width}`).sort(),
    },
  }
}

/** The fields `next` changed against `previous` (every field when there is none), in REVISION_FIELDS's order. */
export function changedFields(
  previous: Omit<RevisionFingerprint, 'number'> | null,
  next: Omit<RevisionFingerprint, 'number'>,
): RevisionField[] {
  if (previous === null) return [...REVISION_FIELDS]
  const differs: Record<RevisionField, boolean> = {
    title: previous.title !== next.title,
    body: previous.bodyHash !== next.bodyHash,
    excerpt: previous.excerpt !== next.excerpt,
    slug: previous.slug !== next.slug,
    categories: !sameList([...previous.categoryIds].sort(), next.categoryIds),
    status: previous.status !== next.status,
    publishedAt: (previous.publishedAt?.getTime() ?? null) !== (next.publishedAt?.getTime() ?? null),
    thumbnail: !sameList(previous.thumbnail, next.thumbnail),
  }
  return REVISION_FIELDS.filter((field) => differs[field])
}
