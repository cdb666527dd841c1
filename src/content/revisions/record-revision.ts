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
 * Records the post's content after a write by `editorId` (null: the service itself). `before`, the
 * post as the write found it, is kept first, by no one, when the post has no revision yet (written
 * before revisions existed, or while they were off): the first edit after an upgrade can be undone.
 */
export type RecordRevision = (
  write: Pick<PostWrite, 'revisions'>,
  post: PostRecord,
  editorId: string | null,
  before?: PostRecord,
) => Promise<void>

export function makeRevisionRecorder({ max, maxBytes }: RevisionLimits): RecordRevision {
  return async ({ revisions }, post, editorId, before) => {
    if (max === 0) return
    let newest = await revisions.newest(post.id)
    if (newest === null && before !== undefined) {
      const baseline = contentOf(before)
      await revisions.insert(post.id, 1, null, { ...baseline.content, changed: [...REVISION_FIELDS] })
      newest = { number: 1, ...baseline.print }
    }
    const { content, print } = contentOf(post)
    const changed = changedFields(newest, print)
    if (changed.length === 0) return
    await revisions.insert(post.id, (newest?.number ?? 0) + 1, editorId, { ...content, changed })
    await revisions.prune(post.id, max, maxBytes)
  }
}
