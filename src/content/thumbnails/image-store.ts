// The data layer for images and the thumbnail rows that use them. Image bytes live in the database,
// so every instance serves what any instance stored; keys are content-addressed, so one image can
// back the thumbnails of several posts, and it lives as long as one of them still uses it.
import type { PrismaClient } from '../../generated/prisma/client.ts'
import type { Rendition } from '../../images/renditions.ts'
import type { Tx } from '../../db/transaction.ts'

/** How many orphans one statement deletes, so a large backlog never becomes one huge transaction. */
const SWEEP_BATCH = 200

/**
 * Stores the image rows (and bytes) of `renditions` in the caller's transaction `tx`: thumbnails and
 * media items alike. An image already stored (same bytes) is reused; `do update` locks its row until
 * the transaction ends, so a concurrent sweep skips it instead of deleting it under us.
 */
export async function storeImages(tx: Tx, renditions: readonly Rendition[]): Promise<void> {
  for (const image of renditions) {
    await tx.$executeRaw`
      insert into images (key, content_type, width, height, byte_size, data)
      values (${image.key}, ${image.contentType}, ${image.width}, ${image.height}, ${image.data.length}, ${image.data})
      on conflict (key) do update set content_type = excluded.content_type`
  }
}

/** A post's thumbnail rows and their images, written in the post write's transaction `tx` (PostStore.transaction). */
export function thumbnailWrites(tx: Tx) {
  return {
    /**
     * Makes `postId`'s thumbnail exactly `renditions` (its images through storeImages); returns how
     * many rows it had before.
     */
    async replace(postId: string, renditions: Rendition[]): Promise<number> {
      const { count } = await tx.postThumbnail.deleteMany({ where: { postId } })
      await storeImages(tx, renditions)
      await tx.postThumbnail.createMany({
        data: renditions.map((image) => ({ postId, imageKey: image.key, width: image.width })),
      })
      return count
    },

    /** Removes the post's thumbnail rows; their images go with the next sweep. Returns how many there were. */
    remove: async (postId: string) => (await tx.postThumbnail.deleteMany({ where: { postId } })).count,
  }
}

export function makeImageStore(prisma: PrismaClient) {
  return {
    find: (key: string) => prisma.image.findUnique({ where: { key }, select: { contentType: true, data: true } }),

    exists: async (key: string) => (await prisma.image.findUnique({ where: { key }, select: { key: true } })) !== null,

    /**
     * Deletes every image no thumbnail and no media item uses; returns how many. Rows another transaction holds
     * (an upload reusing them) are skipped and left for a later sweep, and the foreign key
     * (ON DELETE RESTRICT) refuses the delete of an image a commit made used meanwhile.
     */
    async sweepOrphans(): Promise<number> {
      let total = 0
      for (;;) {
        const deleted = await prisma.$executeRaw`
          delete from images where key in (
            select i.key from images i
            where not exists (select 1 from post_thumbnails t where t.image_key = i.key)
              and not exists (select 1 from media_renditions m where m.image_key = i.key)
            limit ${SWEEP_BATCH}
            for update skip locked)`
        total += deleted
        if (deleted < SWEEP_BATCH) return total
      }
    },
  }
}

export type ImageStore = ReturnType<typeof makeImageStore>
