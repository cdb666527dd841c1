// media:migrate's work (scripts/media-migrate.ts): moving images' bytes between the database and
// the bucket a batch at a time, while the service keeps serving them. Each row says where its bytes
// are; a row moves only once its bytes are at the other place, so every read finds them. Safe to
// stop at any point and run again: each batch picks the rows still at the old location.
import type { PrismaClient } from '../generated/prisma/client.ts'
import { deleteUnneededObjects } from '../content/thumbnails/bucket-store.ts'
import type { S3Driver } from './s3-driver.ts'
import type { Storage } from './storage.ts'

export interface MoveCounts {
  moved: number
  /** Rows that changed under the move (swept, or moved by another run) and were left as they were. */
  skipped: number
  /** Bucket rows whose object is not in the bucket: left where they are, for the operator to see. */
  missing: number
  /** The last key this batch looked at: the next batch starts after it (rows left behind are not met again). */
  lastKey: string | null
}

/** Copies up to `batch` database rows' bytes to the bucket, then points the rows there (data null). */
export async function moveBatchToS3(
  prisma: PrismaClient,
  s3: S3Driver,
  batch: number,
  after = '',
): Promise<MoveCounts> {
  const rows = await prisma.$queryRaw<{ key: string; contentType: string; data: Uint8Array }[]>`
    select key, content_type as "contentType", data from images
    where location = 'database' and data is not null and key > ${after} order by key limit ${batch}`
  const counts = { moved: 0, skipped: 0, missing: 0, lastKey: rows.at(-1)?.key ?? null }
  for (const row of rows) {
    const data = Buffer.from(row.data.buffer, row.data.byteOffset, row.data.byteLength)
    // PUT first: the row points at the bucket only once the object is there.
    await s3.put(row.key, data, row.contentType)
    const updated = await prisma.$executeRaw`
      update images set location = 's3', data = null where key = ${row.key} and location = 'database'`
    counts[updated === 1 ? 'moved' : 'skipped']++
  }
  return counts
}

/**
 * Copies up to `batch` bucket rows' bytes into the database, then deletes their objects once no
 * s3 row needs them (deleteUnneededObjects: a key swept and uploaded again meanwhile keeps its object).
 */
export async function moveBatchToDatabase(
  prisma: PrismaClient,
  storage: Storage,
  batch: number,
  after = '',
): Promise<MoveCounts> {
  const s3 = storage.s3!
  const rows = await prisma.$queryRaw<{ key: string }[]>`
    select key from images where location = 's3' and key > ${after} order by key limit ${batch}`
  const counts = { moved: 0, skipped: 0, missing: 0, lastKey: rows.at(-1)?.key ?? null }
  const moved: string[] = []
  for (const { key } of rows) {
    const data = await s3.readAll(key)
    if (data === null) {
      // An unused row whose sweep failed before its commit (the next sweep takes it), or bytes lost
      // from the bucket: either way there is nothing to copy, and the run says so at its end.
      counts.missing++
      continue
    }
    const updated = await prisma.$executeRaw`
      update images set data = ${data}, location = 'database' where key = ${key} and location = 's3'`
    if (updated === 1) moved.push(key)
    counts[updated === 1 ? 'moved' : 'skipped']++
  }
  if (moved.length > 0) await deleteUnneededObjects(prisma, storage, moved)
  return counts
}

/** How many rows are still at `location`: what a finished run left behind. */
export async function countAt(prisma: PrismaClient, location: 'database' | 's3'): Promise<number> {
  const [row] = await prisma.$queryRaw<{ count: bigint }[]>`
    select count(*) as count from images where location = ${location}::"ImageLocation"`
  return Number(row?.count ?? 0)
}
