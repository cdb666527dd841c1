// How a revision looks on the wire: listed (PostRevisionSummary) and whole (PostRevision).
import type { components } from '../../generated/api.ts'
import type { Wire } from '../../wire.ts'
import { thumbnailSizes } from '../posts/post-view.ts'
import { REVISION_FIELDS, type RevisionField } from './revision-rules.ts'
import type { RevisionListed, RevisionRecord } from './revision-store.ts'

export type PostRevisionSummary = components['schemas']['PostRevisionSummary']
export type PostRevision = components['schemas']['PostRevision']
/** Only the spec's fields, in its order: a row written by a later release never breaks the contract. */
const changedOf = (changed: string[]): RevisionField[] => REVISION_FIELDS.filter((field) => changed.includes(field))

export function toRevisionSummary(row: RevisionListed): Wire<PostRevisionSummary> {
  return {
    id: row.id,
    number: row.number,
    createdAt: row.createdAt.toISOString(),
    editor: row.editor,
    changed: changedOf(row.changed),
    title: row.title,
  }
}

/** The revision whole; its thumbnail sizes as a post's are (by width, urls from `imageUrls`). */
export function toRevision(row: RevisionRecord, imageUrls: string): Wire<PostRevision> {
  const sizes = thumbnailSizes(row.images, imageUrls)
  return {
    id: row.id,
    number: row.number,
    createdAt: row.createdAt.toISOString(),
    editor: row.editor,
    changed: changedOf(row.changed),
    title: row.title,
    body: row.body,
    excerpt: row.excerpt,
    slug: row.slug,
    status: row.status,
    publishedAt: row.publishedAt?.toISOString() ?? null,
    categoryIds: [...row.categoryIds].sort(),
    thumbnail: sizes.length > 0 ? { sizes } : null,
  }
}
