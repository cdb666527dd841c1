// Post thumbnails: replacing them in one transaction, and asking for the images nobody uses any more
// to be swept (src/jobs/sweep-images.ts). Who may set and remove them is visibility.ts's.
import type { Config } from '../../config.ts'
import { ApiError, notFound, RETRY_AFTER_SECONDS } from '../../errors/api-error.ts'
import type { Principal } from '../../auth/principal.ts'
import { makeRenditions } from '../../images/renditions.ts'
import { makeWorkPool, OwnerBusyError, PoolBusyError } from '../../images/work-pool.ts'
import type { ImageStore } from './image-store.ts'
import type { PostStore } from '../posts/post-store.ts'
import type { UploadRate } from './upload-rate.ts'
import { toPost, type Post } from '../posts/post-view.ts'
import type { WebhookEvents } from '../../webhooks/webhook-events.ts'
import type { PostChanges } from '../posts/post-changes.ts'
import type { PostService, RequestImageSweep } from '../posts/posts.ts'
import { editableBy, lockForEdit } from '../posts/visibility.ts'

const retryAfter = { 'retry-after': String(RETRY_AFTER_SECONDS) }
const poolFull = () =>
  new ApiError(
    503,
    'SERVICE_UNAVAILABLE',
    'Too many images are being processed; try again shortly.',
    [{ path: 'images', message: 'The image work queue is full.' }],
    retryAfter,
  )
const ownPlacesTaken = (places: number) => {
  const message =
    places === 1
      ? 'An image of yours is being processed already.'
      : `${places} images of yours are being processed already.`
  return new ApiError(
    429,
    'RATE_LIMITED',
    `${message} Try again when it is done.`,
    [{ path: 'images', message }],
    retryAfter,
  )
}

export interface ThumbnailServiceOptions {
  posts: PostService
  /** The posts whose thumbnails change, in the same transaction as the rows of their thumbnails. */
  store: PostStore
  /** post.updated for a thumbnail changed, in the same transaction. */
  events: WebhookEvents
  images: ImageStore
  /** Each user's allowance of uploads. */
  uploads: UploadRate
  config: Pick<
    Config,
    | 'imageMaxPixels'
    | 'imageFormats'
    | 'imageMaxAspectRatio'
    | 'imageMaxDecodedBytes'
    | 'imageConcurrency'
    | 'imageQueueMax'
    | 'imageJobsPerUser'
  >
  /** What every image url starts with (imageUrlPrefix, src/storage/image-url.ts). */
  imageUrls: string
  requestImageSweep: RequestImageSweep
  changes: PostChanges
}

export function makeThumbnailService({
  posts,
  store,
  images,
  uploads,
  config,
  requestImageSweep,
  changes,
  events,
  imageUrls,
}: ThumbnailServiceOptions) {
  const imageWork = makeWorkPool({
    concurrency: config.imageConcurrency,
    queueMax: config.imageQueueMax,
    perOwner: config.imageJobsPerUser,
  })
  const imageCounts = { decoded: 0 }
  const limits = {
    accepted: config.imageFormats,
    maxPixels: config.imageMaxPixels,
    maxAspectRatio: config.imageMaxAspectRatio,
    maxDecodedBytes: config.imageMaxDecodedBytes,
  }

  return {
    /** The upload's rights, then the user's upload allowance (429), settled before its body is read. */
    async admitUpload(principal: Principal, postId: string): Promise<void> {
      editableBy(principal, await store.findOwnerAndStatus(postId))
      await uploads.count(principal.userId)
    },

    async set(principal: Principal, postId: string, file: Buffer): Promise<Post> {
      // Decoding and encoding happen before the transaction: no row lock is held for that long.
      const renditions = await makeRenditions(file, limits, {
        pool: imageWork,
        owner: principal.userId,
        counts: imageCounts,
      }).catch(async (error: unknown) => {
        // Turned away before any work: the upload is given back to the user's allowance.
        if (error instanceof PoolBusyError || error instanceof OwnerBusyError) await uploads.refund(principal.userId)
        if (error instanceof PoolBusyError) throw poolFull()
        if (error instanceof OwnerBusyError) throw ownPlacesTaken(config.imageJobsPerUser)
        throw error
      })
      const replaced = await store.transaction(async (write) => {
        await lockForEdit(write, principal, postId)
        const previous = await write.replaceThumbnail(postId, renditions)
        await write.touch(postId)
        await events.emit(write.sql, 'post.updated', toPost((await write.find(postId))!, imageUrls))
        return previous
      })
      await changes.changed({ postId })
      if (replaced > 0) await requestImageSweep()
      return posts.get(principal, postId)
    },

    async remove(principal: Principal, postId: string): Promise<void> {
      await store.transaction(async (write) => {
        await lockForEdit(write, principal, postId)
        if ((await write.removeThumbnail(postId)) === 0) throw notFound('THUMBNAIL_NOT_FOUND', 'Thumbnail')
        await write.touch(postId)
        await events.emit(write.sql, 'post.updated', toPost((await write.find(postId))!, imageUrls))
      })
      await changes.changed({ postId })
      await requestImageSweep()
    },

    /** The decoding pool: its counters for metrics (and tests, which may also hold its slots). */
    imageWork,
    /** Images decoded (the header checks passed) since start. */
    imageCounts: () => ({ ...imageCounts }),
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
