// Post thumbnails: who may set and remove them, replacing them in one transaction, and asking for
// the images nobody uses any more to be swept (src/jobs/sweep-images.ts).
import type { Config } from '../config.ts'
import type { PrismaClient } from '../generated/prisma/client.ts'
import { ApiError, notFound, RETRY_AFTER_SECONDS } from '../errors/api-error.ts'
import type { Principal } from '../auth/principal.ts'
import { makeRenditions } from '../images/renditions.ts'
import { makeWorkPool, OwnerBusyError, PoolBusyError } from '../images/work-pool.ts'
import { makeImageStore } from './image-store.ts'
import { makePostStore, type Tx } from './post-store.ts'
import { makeUploadRate } from './upload-rate.ts'
import type { Post } from './post-view.ts'
import type { PostChanges } from './post-changes.ts'
import type { PostService, RequestImageSweep } from './posts.ts'
import { canEdit, canSee } from './visibility.ts'

const forbidden = () => new ApiError(403, 'FORBIDDEN', 'Only the author and admins may change this post.')
const retryAfter = { 'retry-after': String(RETRY_AFTER_SECONDS) }
const poolFull = () =>
  new ApiError(503, 'SERVICE_UNAVAILABLE', 'Too many images are being processed; try again shortly.', [{ path: 'images', message: 'The image work queue is full.' }], retryAfter)
const ownPlacesTaken = (places: number) => {
  const message = places === 1 ? 'An image of yours is being processed already.' : `${places} images of yours are being processed already.`
  return new ApiError(429, 'RATE_LIMITED', `${message} Try again when it is done.`, [{ path: 'images', message }], retryAfter)
}

export function makeThumbnailService(
  prisma: PrismaClient,
  posts: PostService,
  config: Pick<
    Config,
    'imageMaxPixels' | 'imageFormats' | 'imageMaxAspectRatio' | 'imageMaxDecodedBytes' | 'imageConcurrency' | 'imageQueueMax' | 'imageJobsPerUser' | 'uploadRatePerUser' | 'uploadRateWindowSeconds'
  >,
  requestImageSweep: RequestImageSweep,
  changes: PostChanges,
) {
  const images = makeImageStore(prisma)
  const postStore = makePostStore(prisma)
  const imageWork = makeWorkPool({ concurrency: config.imageConcurrency, queueMax: config.imageQueueMax, perOwner: config.imageJobsPerUser })
  const imageCounts = { decoded: 0 }
  const uploads = makeUploadRate(prisma, config)
  const limits = { accepted: config.imageFormats, maxPixels: config.imageMaxPixels, maxAspectRatio: config.imageMaxAspectRatio, maxDecodedBytes: config.imageMaxDecodedBytes }

  /** Locks the post for the write, with the refusals in the spec's order (404 unseen, then 403). */
  async function lockEditable(tx: Tx, principal: Principal, postId: string) {
    if (!(await postStore.lock(tx, postId))) throw notFound('POST_NOT_FOUND', 'Post')
    const post = (await tx.post.findUnique({ where: { id: postId }, select: { authorId: true, status: true } }))!
    if (!canSee(principal, post)) throw notFound('POST_NOT_FOUND', 'Post')
    if (!canEdit(principal, post)) throw forbidden()
  }

  return {
    /** The upload's rights, then the user's upload allowance (429), settled before its body is read. */
    async admitUpload(principal: Principal, postId: string): Promise<void> {
      if (!canEdit(principal, await posts.findVisible(principal, postId))) throw forbidden()
      await uploads.count(principal.userId)
    },

    async set(principal: Principal, postId: string, file: Buffer): Promise<Post> {
      // Decoding and encoding happen before the transaction: no row lock is held for that long.
      const renditions = await makeRenditions(file, limits, { pool: imageWork, owner: principal.userId, counts: imageCounts }).catch(async (error: unknown) => {
        // Turned away before any work: the upload is given back to the user's allowance.
        if (error instanceof PoolBusyError || error instanceof OwnerBusyError) await uploads.refund(principal.userId)
        if (error instanceof PoolBusyError) throw poolFull()
        if (error instanceof OwnerBusyError) throw ownPlacesTaken(config.imageJobsPerUser)
        throw error
      })
      const replaced = await postStore.transaction(async (tx) => {
        await lockEditable(tx, principal, postId)
        const previous = await images.replaceThumbnail(tx, postId, renditions)
        await tx.post.update({ where: { id: postId }, data: { updatedAt: new Date() } })
        return previous
      })
      await changes.changed({ postId })
      if (replaced > 0) await requestImageSweep()
      return posts.get(principal, postId)
    },

    async remove(principal: Principal, postId: string): Promise<void> {
      await postStore.transaction(async (tx) => {
        await lockEditable(tx, principal, postId)
        if ((await images.removeThumbnail(tx, postId)) === 0) throw notFound('THUMBNAIL_NOT_FOUND', 'Thumbnail')
        await tx.post.update({ where: { id: postId }, data: { updatedAt: new Date() } })
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
  }
}

export type ThumbnailService = ReturnType<typeof makeThumbnailService>
