// The media library: each user's images for post bodies. Uploads go through the thumbnails' image
// pipeline and allowance; a per-user quota bounds what a library stores. Who may read an item: its
// owner, admins, and anyone once a published post shows it; who may change it: its owner and admins.
// Image URLs are capabilities (content-addressed keys), as thumbnails' are: these rules guard the
// JSON (alt text, owner), not the bytes.
import type { Principal } from '../../auth/principal.ts'
import type { Config } from '../../config.ts'
import { decodeCursor, DEFAULT_PAGE_LIMIT, pageOf } from '../../cursor.ts'
import { ApiError } from '../../errors/api-error.ts'
import type { ImageUploads } from '../../images/image-uploads.ts'
import type { PostChanges } from '../posts/post-changes.ts'
import { toPost } from '../posts/post-view.ts'
import type { WebhookEvents } from '../../webhooks/webhook-events.ts'
import type { RequestImageSweep } from '../posts/posts.ts'
import type { UploadRate } from '../thumbnails/upload-rate.ts'
import type { UploadGate } from '../../storage/upload-gate.ts'
import type { MediaRecord, MediaStore } from './media-store.ts'
import { inUse, IN_USE_LISTED, mediaNotFound, quotaExceeded } from './media-refusals.ts'
import { toMedia } from './media-view.ts'

/** Past this many posts showing a force-deleted item, every cache forgets everything rather than each post. */
const POSTS_NAMED = 100

export interface MediaServiceOptions {
  store: MediaStore
  /** The upload allowance thumbnails count in too. */
  uploads: UploadRate
  /** A turn for the transaction that may wait for the object store (src/storage/upload-gate.ts). */
  uploadGate: UploadGate
  imageUploads: ImageUploads
  config: Pick<Config, 'mediaQuotaBytes' | 'listPageMaxBytes'>
  /** What every image url starts with (imageUrlPrefix, src/storage/image-url.ts). */
  imageUrls: string
  changes: PostChanges
  /** post.updated for each post a forced delete changes, in the delete's transaction. */
  events: WebhookEvents
  requestImageSweep: RequestImageSweep
}

export function makeMediaService({
  store,
  uploads,
  uploadGate,
  imageUploads,
  config,
  imageUrls,
  changes,
  events,
  requestImageSweep,
}: MediaServiceOptions) {
  /** The caller's quota in bytes; none (null) for admins. */
  const quotaOf = (principal: Principal) => (principal.role === 'admin' ? null : config.mediaQuotaBytes)
  const view = (media: MediaRecord) => toMedia(media, imageUrls)
  const mayChange = (principal: Principal, media: MediaRecord | null): media is MediaRecord =>
    media !== null && (principal.role === 'admin' || principal.userId === media.ownerId)
  /** The item, if the caller may change it; 404 otherwise, as for an id that does not exist. */
  async function changeable(principal: Principal, id: string) {
    const media = await store.find(id)
    if (!mayChange(principal, media)) throw mediaNotFound()
    return media
  }

  return {
    /** Before the body is read: a full library (413), then the user's upload allowance (429). */
    async admitUpload(principal: Principal): Promise<void> {
      const quota = quotaOf(principal)
      if (quota !== null) {
        const used = await store.usage(principal.userId)
        if (used >= quota) throw quotaExceeded(used, quota, 0)
      }
      await uploads.count(principal.userId)
    },

    async upload(principal: Principal, file: Buffer) {
      // Decoded and encoded before the transaction, which then holds the owner's lock only briefly.
      const renditions = await imageUploads.renditions(file, principal.userId, () => uploads.refund(principal.userId))
      const quota = quotaOf(principal)
      const needed = renditions.reduce((sum, image) => sum + image.data.length, 0)
      const created = await uploadGate.run(() =>
        store.create(principal.userId, renditions, (used) => quota === null || used + needed <= quota),
      )
      if ('refusedAt' in created) throw quotaExceeded(created.refusedAt, quota!, needed)
      return view(created)
    },

    async get(principal: Principal | null, id: string) {
      const media = await store.find(id)
      if (media === null) throw mediaNotFound()
      if (principal !== null && mayChange(principal, media)) return view(media)
      if (await store.shownPublicly(id)) return view(media)
      throw mediaNotFound()
    },

    async list(principal: Principal, query: { owner?: string; limit?: number; cursor?: string }) {
      const admin = principal.role === 'admin'
      if (query.owner !== undefined && query.owner !== principal.userId && !admin)
        throw new ApiError(403, 'FORBIDDEN', "Only admins may list another user's media.")
      const limit = query.limit ?? DEFAULT_PAGE_LIMIT
      const rows = await store.list(admin ? query.owner : principal.userId, decodeCursor(query.cursor), limit + 1)
      const position = (media: MediaRecord) => ({ at: media.createdAt, id: media.id })
      const { items, nextCursor } = pageOf(rows, limit, position, view, config.listPageMaxBytes)
      return { items, page: { limit, nextCursor } }
    },

    async update(principal: Principal, id: string, patch: { alt?: string | null }) {
      const media = await changeable(principal, id)
      if (patch.alt === undefined) return view(media)
      return view(await store.updateAlt(id, patch.alt))
    },

    async remove(principal: Principal, id: string, force: boolean): Promise<void> {
      await changeable(principal, id)
      const { deleted, postIds, total } = await store.remove(
        id,
        force,
        force ? POSTS_NAMED : IN_USE_LISTED,
        (sql, post) => events.emit(sql, 'post.updated', toPost(post, imageUrls)),
      )
      if (!deleted && total > 0) throw inUse(postIds, total)
      if (!deleted) throw mediaNotFound()
      // The posts that showed it no longer list it (post_media went by cascade): caches drop them.
      if (total > postIds.length) await changes.changedEverything()
      else for (const postId of postIds) await changes.changed({ postId, listsChanged: true })
      await requestImageSweep()
    },
  }
}

export type MediaService = ReturnType<typeof makeMediaService>
