// Post thumbnails: replacing them in one transaction, and asking for the images nobody uses any more
// to be swept (src/jobs/sweep-images.ts). Who may set and remove them is visibility.ts's.
import { notFound } from '../../errors/api-error.ts'
import type { Principal } from '../../auth/principal.ts'
import type { ImageUploads } from '../../images/image-uploads.ts'
import type { ImageStore } from './image-store.ts'
import type { PostRecord, PostStore, PostWrite } from '../posts/post-store.ts'
import type { UploadRate } from './upload-rate.ts'
import type { UploadGate } from '../../storage/upload-gate.ts'
import { toPost, type Post } from '../posts/post-view.ts'
import type { WebhookEvents } from '../../webhooks/webhook-events.ts'
import type { PostChanges } from '../posts/post-changes.ts'
import type { PostService, RequestImageSweep } from '../posts/posts.ts'
import { editableBy, lockForEdit } from '../posts/visibility.ts'
import type { RecordRevision } from '../revisions/record-revision.ts'

export interface ThumbnailServiceOptions {
  posts: PostService
  /** The posts whose thumbnails change, in the same transaction as the rows of their thumbnails. */
  store: PostStore
  /** post.updated for a thumbnail changed, in the same transaction. */
  events: WebhookEvents
  images: ImageStore
  /** Each user's allowance of uploads. */
  uploads: UploadRate
  /** A turn for the transaction that may wait for the object store (src/storage/upload-gate.ts). */
  uploadGate: UploadGate
  /** The image pipeline (limits, work pool) thumbnails share with media items. */
  imageUploads: ImageUploads
  /** What every image url starts with (imageUrlPrefix, src/storage/image-url.ts). */
  imageUrls: string
  requestImageSweep: RequestImageSweep
  changes: PostChanges
  /** A thumbnail set or removed is a revision (src/content/revisions/record-revision.ts). */
  recordRevision: RecordRevision
}

export function makeThumbnailService({
  posts,
  store,
  images,
  uploads,
  uploadGate,
  imageUploads,
  requestImageSweep,
  changes,
  events,
  imageUrls,
  recordRevision,
}: ThumbnailServiceOptions) {
  /** The post after its thumbnail changed: a revision by `principal`, and post.updated, in the write's transaction. */
  async function thumbnailChanged(write: PostWrite, principal: Principal, postId: string, before: PostRecord) {
    const post = (await write.find(postId))!
    await recordRevision(write, post, principal.userId, before)
    await events.emit(write.sql, 'post.updated', toPost(post, imageUrls))
  }

  return {
    /** The upload's rights, then the user's upload allowance (429), settled before its body is read. */
    async admitUpload(principal: Principal, postId: string): Promise<void> {
      editableBy(principal, await store.findOwnerAndStatus(postId))
      await uploads.count(principal.userId)
    },

    async set(principal: Principal, postId: string, file: Buffer): Promise<Post> {
      // Decoding and encoding happen before the transaction: no row lock is held for that long.
      const renditions = await imageUploads.renditions(file, principal.userId, () => uploads.refund(principal.userId))
      // The transaction PUTs the images while it holds a connection: it waits for a turn first.
      const replaced = await uploadGate.run(() =>
        store.transaction(async (write) => {
          await lockForEdit(write, principal, postId)
          const before = (await write.find(postId))!
          const previous = await write.replaceThumbnail(postId, renditions)
          await write.touch(postId)
          await thumbnailChanged(write, principal, postId, before)
          return previous
        }),
      )
      await changes.changed({ postId })
      if (replaced > 0) await requestImageSweep()
      return posts.get(principal, postId)
    },

    async remove(principal: Principal, postId: string): Promise<void> {
      await store.transaction(async (write) => {
        await lockForEdit(write, principal, postId)
        const before = (await write.find(postId))!
        if ((await write.removeThumbnail(postId)) === 0) throw notFound('THUMBNAIL_NOT_FOUND', 'Thumbnail')
        await write.touch(postId)
        await thumbnailChanged(write, principal, postId, before)
      })
      await changes.changed({ postId })
      await requestImageSweep()
    },

    /** The decoding pool, shared with media items: its counters for metrics (and tests, which may also hold its slots). */
    imageWork: imageUploads.pool,
    /** Images decoded (the header checks passed) since start, thumbnails and media items alike. */
    imageCounts: imageUploads.counts,
    findImage: images.find,
    imageExists: images.exists,
    /** Deletes the images no thumbnail and no media item uses any more (the sweep job's work). */
    sweepUnusedImages: images.sweepOrphans,
    /** Deletes the bucket's objects no row needs, older than `graceMs` (the daily bucket sweep, media:migrate). */
    sweepBucket: images.sweepBucket,
    /** Stores images, rows and bytes, in a caller's transaction (image-store.ts, StoreImages). */
    storeImages: images.storeImages,
  }
}

export type ThumbnailService = ReturnType<typeof makeThumbnailService>
