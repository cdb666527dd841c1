// The drivers an instance has: the one NEW bytes go to (MEDIA_STORAGE), and the one for each
// location rows may already be at (a bucket configured while MEDIA_STORAGE=database still serves
// the images moved there). Built once in src/services.ts.
import type { StorageConfig } from '../config/storage.ts'
import { databaseDriver } from './database-driver.ts'
import { StorageUnavailableError, type ImageLocation, type StorageDriver } from './driver.ts'
import { makeS3Driver, type S3Driver } from './s3-driver.ts'

export interface Storage {
  /** Where new bytes go. */
  current: StorageDriver
  /** The driver for rows at `location`; throws StorageUnavailableError for s3 rows with no bucket configured. */
  at(location: ImageLocation): StorageDriver
  /** The bucket's driver, when S3_BUCKET is set. */
  s3: S3Driver | null
  close(): void
}

/**
 * Prisma's interactive-transaction timeout for a transaction that calls the object store: its own
 * default (5 s) would end it while a PUT still has time left. The database's part is bounded by the
 * statement timeout; this only keeps Prisma from cutting the store's time short.
 */
export const transactionTimeout = (storage: Pick<Storage, 's3'>) => 10_000 + 2 * (storage.s3?.timeoutMs ?? 0)

export function makeStorage(config: StorageConfig): Storage {
  const s3 = config.s3 === null ? null : makeS3Driver(config.s3, config.storageTimeoutMs)
  const at = (location: ImageLocation): StorageDriver => {
    if (location === 'database') return databaseDriver
    if (s3 === null)
      throw new StorageUnavailableError('read', new Error('an image is in object storage but S3_BUCKET is not set'))
    return s3
  }
  return { current: at(config.mediaStorage), at, s3, close: () => s3?.close() }
}
