// Objects in the bucket that no images row at location s3 names: what an upload PUT before its
// transaction rolled back (the store answered after our timeout, the database failed at commit),
// or what media:migrate --to database copied back and was stopped before deleting. Run daily and
// at the end of media:migrate --to database.
import type { PrismaClient } from '../../generated/prisma/client.ts'
import { transactionTimeout, type Storage } from '../../storage/storage.ts'

/** Only objects named like our keys are ours to delete: anything else under the prefix is left alone. */
const IMAGE_KEY = /^[a-f0-9]{64}\.(?:webp|jpg|png|gif|avif)$/
const BATCH = 200

/**
 * Deletes the objects of `keys` that no row at location s3 needs, and returns how many. Each key
 * with no row is claimed by inserting a placeholder row: an upload inserting the same key
 * meanwhile waits for this transaction (the unique key), then inserts and PUTs again; a key whose
 * row is in the database is locked (`for update`) so no sweep can delete and re-create it at s3
 * meanwhile. The objects go while those are held, then the placeholders.
 */
export async function deleteUnneededObjects(prisma: PrismaClient, storage: Storage, keys: string[]): Promise<number> {
  const ours = keys.filter((key) => IMAGE_KEY.test(key))
  if (ours.length === 0 || storage.s3 === null) return 0
  const s3 = storage.s3
  return prisma.$transaction(
    async (tx) => {
      const claimed = await tx.$queryRaw<{ key: string }[]>`
        insert into images (key, content_type, width, height, byte_size, data, location)
        select k, 'application/octet-stream', 1, 1, 0, null, 's3' from unnest(${ours}::text[]) k
        on conflict (key) do nothing
        returning key`
      const inDatabase = await tx.$queryRaw<{ key: string }[]>`
        select key from images where key = any(${ours}::text[]) and location = 'database' for update`
      const unneeded = [...claimed, ...inDatabase].map((row) => row.key)
      if (unneeded.length > 0) await s3.remove(unneeded)
      if (claimed.length > 0)
        await tx.$executeRaw`delete from images where key = any(${claimed.map((row) => row.key)}::text[])`
      return unneeded.length
    },
    { timeout: transactionTimeout(storage) },
  )
}

/** Deletes the bucket's objects no s3 row needs, last written more than `graceMs` ago; returns how many. */
export async function sweepBucket(prisma: PrismaClient, storage: Storage, graceMs: number): Promise<number> {
  if (storage.s3 === null) return 0
  let deleted = 0
  for await (const page of storage.s3.listOlderThan(new Date(Date.now() - graceMs))) {
    for (let at = 0; at < page.length; at += BATCH)
      deleted += await deleteUnneededObjects(prisma, storage, page.slice(at, at + BATCH))
  }
  return deleted
}
