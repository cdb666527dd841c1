// Post revisions: the three operations (list, read one, restore). Only the post's author and
// admins see them (visibility.ts, canSeeRevisions); to anyone else the post does not exist. A
// restore is updatePost with the revision's content as its input (its status and publication time
// too), so it passes every check an edit passes and is itself recorded as a revision by that path.
import { notFound } from '../../errors/api-error.ts'
import type { Principal } from '../../auth/principal.ts'
import { decodeKeyCursor, DEFAULT_PAGE_LIMIT, keyPageOf } from '../../cursor.ts'
import type { PostStore } from '../posts/post-store.ts'
import type { PostService } from '../posts/posts.ts'
import { canSeeRevisions } from '../posts/visibility.ts'
import type { RevisionLimits } from './record-revision.ts'
import type { RevisionStore } from './revision-store.ts'
import { toRevision, toRevisionSummary } from './revision-view.ts'

export interface RevisionServiceOptions {
  store: RevisionStore
  posts: Pick<PostStore, 'findOwnerAndStatus'>
  postService: Pick<PostService, 'update'>
  limits: RevisionLimits
  /** LIST_PAGE_MAX_BYTES. */
  pageMaxBytes: number
  /** What every image url starts with (imageUrlPrefix, src/storage/image-url.ts). */
  imageUrls: string
}

/** A cursor is a revision number: at most nine digits keeps it within the int column, and a forged one a 400. */
const NUMBER_CURSOR = /^[1-9]\d{0,8}$/

const revisionNotFound = () => notFound('REVISION_NOT_FOUND', 'Revision')

export function makeRevisionService({
  store,
  posts,
  postService,
  limits,
  pageMaxBytes,
  imageUrls,
}: RevisionServiceOptions) {
  /** 404 POST_NOT_FOUND unless the caller is the post's author or an admin: revisions are never public. */
  async function readable(principal: Principal | null, postId: string): Promise<void> {
    const post = await posts.findOwnerAndStatus(postId)
    if (post === null || !canSeeRevisions(principal, post)) throw notFound('POST_NOT_FOUND', 'Post')
  }

  async function revision(principal: Principal | null, postId: string, revisionId: string) {
    await readable(principal, postId)
    // Revisions off: none is offered, as none is listed.
    const found = limits.max === 0 ? null : await store.find(postId, revisionId)
    if (found === null) throw revisionNotFound()
    return found
  }

  return {
    async list(principal: Principal | null, postId: string, query: { limit?: number; cursor?: string }) {
      await readable(principal, postId)
      const limit = query.limit ?? DEFAULT_PAGE_LIMIT
      const before = decodeKeyCursor(query.cursor, NUMBER_CURSOR)
      if (limits.max === 0) return { items: [], page: { limit, nextCursor: null } }
      const rows = await store.list(postId, before === undefined ? undefined : Number(before), limit + 1)
      const { items, nextCursor } = keyPageOf(rows, limit, (row) => String(row.number), toRevisionSummary, pageMaxBytes)
      return { items, page: { limit, nextCursor } }
    },

    get: async (principal: Principal | null, postId: string, revisionId: string) =>
      toRevision(await revision(principal, postId, revisionId), imageUrls),

    /**
     * Makes the revision the post's content through updatePost: title, body, excerpt, slug,
     * categories (those still existing; none left: the default one), thumbnail, and status and
     * publication time (restoredStatus in post-write-rules.ts: a published revision keeps its
     * time; a scheduled one whose time has passed is published at it).
     */
    async restore(principal: Principal, postId: string, revisionId: string, ifMatch: string | undefined) {
      const found = await revision(principal, postId, revisionId)
      const categoryIds = await store.existingCategories(found.categoryIds)
      const input = { title: found.title, body: found.body, excerpt: found.excerpt, slug: found.slug, categoryIds }
      const thumbnail = found.images.map(({ image, width }) => ({ key: image.key, width }))
      const restoring = { thumbnail, status: found.status, publishedAt: found.publishedAt }
      return postService.update(principal, postId, input, ifMatch, restoring)
    },
  }
}

export type RevisionService = ReturnType<typeof makeRevisionService>
