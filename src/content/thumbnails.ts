// Post thumbnails: who may set and remove them, replacing them in one transaction, and asking for
// the images nobody uses any more to be swept (src/jobs/sweep-images.ts).
import type { Config } from '../config.ts'
import type { PrismaClient } from '../generated/prisma/client.ts'
import { ApiError, notFound } from '../http/api-error.ts'
import type { Principal } from '../http/security.ts'
import { makeRenditions } from '../images/renditions.ts'
import { makeImageStore } from './image-store.ts'
import { makePostStore, type Tx } from './post-store.ts'
import type { Post } from './post-view.ts'
import type { PostChanges } from './post-changes.ts'
import type { PostService, RequestImageSweep } from './posts.ts'
import { canEdit, canSee } from './visibility.ts'

const forbidden = () => new ApiError(403, 'FORBIDDEN', 'Only the author and admins may change this post.')

export function makeThumbnailService(
  prisma: PrismaClient,
  posts: PostService,
  config: Pick<Config, 'imageMaxPixels' | 'imageFormats'>,
  requestImageSweep: RequestImageSweep,
  changes: PostChanges,
) {
  const images = makeImageStore(prisma)
  const postStore = makePostStore(prisma)

  /** Locks the post for the write, with the refusals in the spec's order (404 unseen, then 403). */
  async function lockEditable(tx: Tx, principal: Principal, postId: string) {
    if (!(await postStore.lock(tx, postId))) throw notFound('POST_NOT_FOUND', 'Post')
    const post = (await tx.post.findUnique({ where: { id: postId }, select: { authorId: true, status: true } }))!
    if (!canSee(principal, post)) throw notFound('POST_NOT_FOUND', 'Post')
    if (!canEdit(principal, post)) throw forbidden()
  }

  return {
    /** The upload's rights, settled before its body is read. */
    async checkEditable(principal: Principal, postId: string): Promise<void> {
      if (!canEdit(principal, await posts.findVisible(principal, postId))) throw forbidden()
    },

    async set(principal: Principal, postId: string, file: Buffer): Promise<Post> {
      // Decoding and encoding happen before the transaction: no row lock is held for that long.
      const renditions = await makeRenditions(file, { maxPixels: config.imageMaxPixels, accepted: config.imageFormats })
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

    findImage: images.find,
    imageExists: images.exists,
  }
}

export type ThumbnailService = ReturnType<typeof makeThumbnailService>
