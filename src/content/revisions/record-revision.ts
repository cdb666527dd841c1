// Writing a revision: one function every post write calls in its transaction, with the post as
// the write left it. It compares it with the newest revision, inserts one only when a content
// field changed, and prunes to the limits in the same transaction.
import type { PostRecord, PostWrite } from '../posts/post-store.ts'
import { changedFields, contentOf, REVISION_FIELDS } from './revision-rules.ts'

export interface RevisionLimits {
  /** POST_REVISIONS_MAX: revisions kept per post (0: revisions off, nothing written, nothing listed). */
  max: number
  /** POST_REVISIONS_MAX_BYTES: bytes of titles, bodies and excerpts kept per post. */
  maxBytes: number
}

/**
 * Records the post's content after a write by `editorId` (null: the service itself), naming the
 * fields this write changed: `post` against `before`, the post as the write found it in its
 * transaction (null for a new post: every field). Nothing is written when the write changed no
 * content field, even if the post differs from its newest revision (a category deleted meanwhile
 * moved it to the default one without a revision: that is not this editor's change). When the post
 * has no revision yet (written before revisions existed, or while they were off), `before` is kept
 * first, by no one: the first edit after an upgrade can be undone.
 */
export type RecordRevision = (
  write: Pick<PostWrite, 'revisions'>,
  post: PostRecord,
  editorId: string | null,
  before: PostRecord | null,
) => Promise<void>

export function makeRevisionRecorder({ max, maxBytes }: RevisionLimits): RecordRevision {
  return async ({ revisions }, post, editorId, before) => {
    if (max === 0) return
    const previous = before === null ? null : contentOf(before)
    const content = contentOf(post)
    const changed = changedFields(previous, content)
    if (changed.length === 0) return
    let number = await revisions.newestNumber(post.id)
    if (number === null && previous !== null) {
      await revisions.insert(post.id, 1, null, { ...previous, changed: [...REVISION_FIELDS] })
      number = 1
    }
    await revisions.insert(post.id, (number ?? 0) + 1, editorId, { ...content, changed })
    await revisions.prune(post.id, max, maxBytes)
  }
}
