// The data layer of media in post bodies: the author's media items a body's URLs name (read before
// rendering), and the post_media rows that say which of them a post's html shows (written in the
// post write's transaction).
import type { PrismaClient } from '../../generated/prisma/client.ts'
import type { Tx } from '../../db/transaction.ts'
import type { MediaImage } from './body-media.ts'

interface RenditionRow {
  hit: string
  id: string
  alt: string | null
  width: number
  height: number
  key: string
  renditionWidth: number
}

/**
 * The media items of `ownerId` that have a rendition among `keys`, by each such key, with all their
 * renditions (narrowest first). One query; another user's item, or a key no media item has, is
 * simply not found.
 */
export async function findOwnMedia(
  db: PrismaClient | Tx,
  ownerId: string,
  keys: string[],
): Promise<Record<string, MediaImage>> {
  if (keys.length === 0) return {}
  const rows = await db.$queryRaw<RenditionRow[]>`
    select hit.image_key as hit, m.id, m.alt, m.width, m.height, r.image_key as key, r.width as "renditionWidth"
    from media_renditions hit
    join media m on m.id = hit.media_id and m.owner_id = ${ownerId}::uuid
    join media_renditions r on r.media_id = m.id
    where hit.image_key = any(${keys}::text[])
    order by hit.image_key, r.width, r.image_key`
  const byKey: Record<string, MediaImage> = {}
  for (const row of rows) {
    const item = (byKey[row.hit] ??= {
      id: row.id,
      alt: row.alt,
      width: row.width,
      height: row.height,
      renditions: [],
    })
    item.renditions.push({ key: row.key, width: row.renditionWidth })
  }
  return byKey
}

/** A post's post_media rows, in the post write's transaction `tx`. */
export function postMediaWrites(tx: Tx) {
  return {
    /**
     * Makes the media `postId` shows exactly `mediaIds`, of those that are still `authorId`'s
     * items: one deleted since the body was rendered (deleteMedia with force) is left out, as its
     * deletion would have removed its row. Each item is locked `for key share` as it is read (a
     * deletion committing meanwhile makes the read skip it, where the foreign key's own check
     * would fail the write), and stays locked until the write commits: a deletion then waits, and
     * removes the row with the item.
     */
    async replace(postId: string, authorId: string, mediaIds: string[]) {
      await tx.$executeRaw`delete from post_media where post_id = ${postId}::uuid`
      if (mediaIds.length === 0) return
      await tx.$executeRaw`
        insert into post_media (post_id, media_id)
        select ${postId}::uuid, m.id from media m
        where m.id = any(${mediaIds}::uuid[]) and m.owner_id = ${authorId}::uuid
        for key share`
    },
  }
}
