// The data layer for images and the thumbnail rows that use them. Every image has a row here
// wherever its bytes are (`location`: in images.data, or in the bucket, src/storage/); keys are
// content-addressed, so one image can back the thumbnails of several posts and media items, and it
// lives as long as one of them still uses it.
import type { PrismaClient } from '../../generated/prisma/client.ts'
import type { ImageLocation } from '../../generated/prisma/enums.ts'
import type { Rendition } from '../../images/renditions.ts'
import type { Tx } from '../../db/transaction.ts'
import { transactionTimeout, type Storage } from '../../storage/storage.ts'
import { sweepBucket } from './bucket-store.ts'

/** How many orphans one transaction deletes, so a large backlog never becomes one huge transaction. */
const SWEEP_BATCH = 200

/**
 * Stores images, rows and bytes, inside the caller's transaction `tx`: thumbnails and media call it
 * with the renditions of one upload, before they write the rows that use them (post_thumbnails,
 * media_renditions) in the same transaction. Made once per process by makeImageStore
 * (`images.storeImages`); a store that writes images takes it as an option.
 *
 * Each image's row is inserted, or, when the same bytes are stored already, locked (`on conflict
 * do update`), so a concurrent sweep skips it until `tx` ends. A row in the bucket gets its
 * object PUT again every time (idempotent: same key, same bytes), while `tx` is open: the row is
 * seen by others only once its object exists, even after a sweep deleted the object and then
 * failed to commit. A row already in the database stays there. A failing or slow object store
 * throws StorageUnavailableError (src/storage/driver.ts): the caller lets it roll `tx` back and
 * the request is answered 503 with Retry-After. The caller's transaction must allow for
 * STORAGE_TIMEOUT_MS per call (Prisma's interactive-transaction timeout, see PostStore.transaction).
 */
export type StoreImages = (tx: Tx, renditions: Rendition[]) => Promise<void>

export function makeStoreImages(storage: Storage): StoreImages {
  const target = storage.current
  return async (tx, renditions) => {
    const inBucket: Rendition[] = []
    for (const image of renditions) {
      // New bytes go where MEDIA_STORAGE says; the data column carries them only for the database.
      const data = target.location === 'database' ? image.data : null
      const [row] = await tx.$queryRaw<{ location: ImageLocation }[]>`
        insert into images (key, content_type, width, height, byte_size, data, location)
        values (${image.key}, ${image.contentType}, ${image.width}, ${image.height}, ${image.data.length}, ${data},
                ${target.location}::"ImageLocation")
        on conflict (key) do update set content_type = excluded.content_type
        returning location`
      if (row!.location === 's3') inBucket.push(image)
    }
    // Side by side: an upload waits for the store at most once STORAGE_TIMEOUT_MS, not once per rendition.
    if (inBucket.length > 0) {
      const s3 = storage.at('s3')
      await Promise.all(inBucket.map((image) => s3.put(image.key, image.data, image.contentType)))
    }
  }
}

/** A post's thumbnail rows and their images, written in the post write's transaction `tx` (PostStore.transaction). */
export function thumbnailWrites(tx: Tx, storeImages: StoreImages) {
  return {
    /** Makes `postId`'s thumbnail exactly `renditions` (stored by storeImages); returns how many rows it had before. */
    async replace(postId: string, renditions: Rendition[]): Promise<number> {
      const { count } = await tx.postThumbnail.deleteMany({ where: { postId } })
      await storeImages(tx, renditions)
      await tx.postThumbnail.createMany({
        data: renditions.map((image) => ({ postId, imageKey: image.key, width: image.width })),
      })
      return count
    },

    /**
     * Makes `postId`'s thumbnail exactly `images`, rows of images that exist (a revision's, which
     * its post_revision_images rows keep from the sweep); returns how many rows it had before.
     */
    async restore(postId: string, images: { key: string; width: number }[]): Promise<number> {
      const { count } = await tx.postThumbnail.deleteMany({ where: { postId } })
      await tx.postThumbnail.createMany({ data: images.map(({ key, width }) => ({ postId, imageKey: key, width })) })
      return count
    },

    /** Removes the post's thumbnail rows; their images go with the next sweep. Returns how many there were. */
    remove: async (postId: string) => (await tx.postThumbnail.deleteMany({ where: { postId } })).count,
  }
}

export function makeImageStore(prisma: PrismaClient, storage: Storage) {
  return {
    storeImages: makeStoreImages(storage),

    /** What getImage needs of a row: the bytes themselves only when they are in the database. */
    find: async (key: string) => {
      const [row] = await prisma.$queryRaw<
        { contentType: string; byteSize: number; location: ImageLocation; data: Uint8Array | null }[]
      >`select content_type as "contentType", byte_size as "byteSize", location,
          case when location = 'database' then data end as data
        from images where key = ${key}`
      return row ?? null
    },

    exists: async (key: string) => (await prisma.image.findUnique({ where: { key }, select: { key: true } })) !== null,

    /**
     * Deletes every image no thumbnail, no media item and no post revision uses, rows and bytes; returns how many.
     * Each batch is one transaction: the orphans are locked (`for update skip locked`: rows an
     * upload holds are left for a later sweep), their objects deleted while the rows are locked,
     * then the rows. An upload of the same bytes waits for that commit, then inserts and PUTs
     * again; the foreign keys (ON DELETE RESTRICT) refuse the delete of an image a commit made used.
     */
    async sweepOrphans(): Promise<number> {
      let total = 0
      for (;;) {
        const deleted = await prisma.$transaction(
          async (tx) => {
            const rows = await tx.$queryRaw<{ key: string; location: ImageLocation }[]>`
              select i.key, i.location from images i
              where not exists (select 1 from post_thumbnails t where t.image_key = i.key)
                and not exists (select 1 from media_renditions m where m.image_key = i.key)
                and not exists (select 1 from post_revision_images r where r.image_key = i.key)
              limit ${SWEEP_BATCH}
              for update skip locked`
            const inBucket = rows.filter((row) => row.location === 's3').map((row) => row.key)
            if (inBucket.length > 0) await storage.at('s3').remove(inBucket)
            if (rows.length === 0) return 0
            return tx.$executeRaw`delete from images where key = any(${rows.map((row) => row.key)}::text[])`
          },
          { timeout: transactionTimeout(storage) },
        )
        total += deleted
        if (deleted < SWEEP_BATCH) return total
      }
    },

    /** Deletes the bucket's objects no s3 row names, last written more than `graceMs` ago (bucket-sweep.ts). */
    sweepBucket: (graceMs: number) => sweepBucket(prisma, storage, graceMs),
  }
}

export type ImageStore = ReturnType<typeof makeImageStore>
