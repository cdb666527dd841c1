// The data layer for media items (a user's library of images for post bodies) and the rows that
// tie them to their images and to the posts that show them.
import type { Prisma, PrismaClient } from '../../generated/prisma/client.ts'
import { afterPosition, type Position } from '../../cursor.ts'
import { sqlIn, type TransactionSql, type Tx } from '../../db/transaction.ts'
import { loadPost, type PostRecord } from '../posts/post-store.ts'
import type { Rendition } from '../../images/renditions.ts'
import type { StoreImages } from '../thumbnails/image-store.ts'

const mediaInclude = {
  renditions: { include: { image: { select: { key: true, width: true, height: true, contentType: true } } } },
} satisfies Prisma.MediaInclude

export type MediaRecord = Prisma.MediaGetPayload<{ include: typeof mediaInclude }>

/** The posts that show an item: up to `take` ids, newest post first, and how many there are in all. */
async function postsShowing(db: Tx | PrismaClient, mediaId: string, take: number) {
  const rows = await db.$queryRaw<{ id: string; total: bigint }[]>`
    select p.id::text as id, count(*) over () as total
    from post_media pm join posts p on p.id = pm.post_id
    where pm.media_id = ${mediaId}::uuid
    order by p.created_at desc, p.id desc
    limit ${take}`
  return { postIds: rows.map((row) => row.id), total: Number(rows[0]?.total ?? 0) }
}

/** The bytes of the owner's items: what counts against their quota. */
async function usage(db: Tx | PrismaClient, ownerId: string): Promise<number> {
  const [row] = await db.$queryRaw<{ used: bigint }[]>`
    select coalesce(sum(byte_size), 0)::bigint as used from media where owner_id = ${ownerId}::uuid`
  return Number(row?.used ?? 0)
}

export interface MediaStoreOptions {
  /** Stores the renditions' images, rows and bytes, in the item's transaction (image-store.ts). */
  storeImages: StoreImages
  /** The item's transaction may wait for the object store (storage.ts, transactionTimeout). */
  transactionTimeoutMs: number
}

export function makeMediaStore(prisma: PrismaClient, { storeImages, transactionTimeoutMs }: MediaStoreOptions) {
  return {
    usage: (ownerId: string) => usage(prisma, ownerId),

    /**
     * Stores the item and its images in one transaction, under a lock of the owner's (so two
     * uploads of theirs cannot both pass the quota on the same usage), if `fits` the owner's usage
     * with it; otherwise stores nothing and returns the usage that refused it.
     */
    create: (ownerId: string, renditions: Rendition[], fits: (used: number) => boolean) =>
      prisma.$transaction(
        async (tx): Promise<MediaRecord | { refusedAt: number }> => {
          await tx.$executeRaw`select pg_advisory_xact_lock(hashtext('media-quota'), hashtext(${ownerId}))`
          const used = await usage(tx, ownerId)
          if (!fits(used)) return { refusedAt: used }
          await storeImages(tx, renditions)
          const largest = renditions.reduce((a, b) => (b.width > a.width ? b : a))
          // Taken under the lock, not at the transaction's start: an owner's items are then created in
          // commit order, and a reader paging their library never has one appear behind its cursor.
          const [{ now }] = (await tx.$queryRaw<{ now: Date }[]>`select clock_timestamp()::timestamptz(3) as now`) as [
            { now: Date },
          ]
          return tx.media.create({
            data: {
              ownerId,
              width: largest.width,
              height: largest.height,
              byteSize: renditions.reduce((sum, image) => sum + image.data.length, 0),
              createdAt: now,
              renditions: { create: renditions.map((image) => ({ imageKey: image.key, width: image.width })) },
            },
            include: mediaInclude,
          })
        },
        { timeout: transactionTimeoutMs },
      ),

    find: (id: string) => prisma.media.findUnique({ where: { id }, include: mediaInclude }),

    /** Whether a published post shows the item: then anyone may read it. */
    shownPublicly: async (id: string) =>
      (await prisma.postMedia.count({ where: { mediaId: id, post: { status: 'published' } }, take: 1 })) > 0,

    /** A page of items, newest first: the owner's, or everyone's (`ownerId` undefined). */
    list: (ownerId: string | undefined, after: Position | undefined, take: number) =>
      prisma.media.findMany({
        where: { ...(ownerId === undefined ? {} : { ownerId }), ...afterPosition(after, 'lt') },
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        take,
        include: mediaInclude,
      }),

    updateAlt: (id: string, alt: string | null) =>
      prisma.media.update({ where: { id }, data: { alt }, include: mediaInclude }),

    /**
     * Deletes the item unless posts show it and `force` is false. Its row is locked first, so a post
     * write adding it (which takes a key-share lock on it) waits, and the posts counted are all there are.
     * Forced, every post that showed it is changed in the same transaction: its updatedAt moves on,
     * and `updated` hears each as read after the delete (post.updated), a page of posts at a time.
     * Returns the posts that show it (at most `take`, and the total), and whether it was deleted.
     */
    remove: (
      id: string,
      force: boolean,
      take: number,
      updated: (sql: TransactionSql, post: PostRecord) => Promise<void>,
    ) =>
      prisma.$transaction(
        async (tx) => {
          const locked = await tx.$queryRaw<unknown[]>`select 1 from media where id = ${id}::uuid for update`
          if (locked.length === 0) return { deleted: false, postIds: [], total: 0 }
          const showing = await postsShowing(tx, id, take)
          if (showing.total > 0 && !force) return { deleted: false, ...showing }
          // Every post that shows it, changed with it: one statement, whatever their number.
          const changed = await tx.$queryRaw<{ id: string }[]>`
            update posts set updated_at = clock_timestamp()::timestamptz(3)
            where id in (select post_id from post_media where media_id = ${id}::uuid)
            returning id::text as id`
          // post_media and media_renditions rows go by cascade; the images stay for the sweep.
          await tx.media.delete({ where: { id } })
          const sql = sqlIn(tx)
          for (const { id: postId } of changed) {
            const post = await loadPost(tx, postId)
            if (post !== null) await updated(sql, post)
          }
          return { deleted: true, ...showing }
        },
        { timeout: transactionTimeoutMs },
      ),
  }
}

export type MediaStore = ReturnType<typeof makeMediaStore>
