// The drivers an instance has: the one NEW bytes go to (MEDIA_STORAGE), and the one for each
// location rows may already be at (a bucket configured while MEDIA_STORAGE=database still serves
// the images moved there). Built once in src/services.ts.
import type { StorageConfig } from '../config/storage.ts'
import { databaseDriver } from './database-driver.ts'
import { StorageUnavailableError, type ImageLocation, type StorageDriver } from './driver.ts'
import type { S3Driver } from './s3-driver.ts'
import { makeStorageHealth, type StorageHealth } from './storage-health.ts'
import { makeUploadGate, openGate, type UploadGate } from './upload-gate.ts'

export interface Storage {
  /** Where new bytes go. */
  current: StorageDriver
  /** The driver for rows at `location`; throws StorageUnavailableError for s3 rows with no bucket configured. */
  at(location: ImageLocation): StorageDriver
  /** The bucket's driver, when S3_BUCKET is set. */
  s3: S3Driver | null
  /** What is known of the bucket, from its calls and the background check; null without a bucket. */
  health: StorageHealth | null
  /** Bounds the uploads that hold a database connection while they call the store (upload-gate.ts). */
  uploads: UploadGate
  /** Starts the background check of the bucket (the service does; scripts do not); close stops it. */
  watch(): void
  close(): void
}

/**
 * Prisma's interactive-transaction timeout for a transaction that calls the object store: its own
 * default (5 s) would end it while a PUT still has time left. The database's part is bounded by the
 * statement timeout; this only keeps Prisma from cutting the store's time short.
 */
export const transactionTimeout = (storage: Pick<Storage, 's3'>) => 10_000 + 2 * (storage.s3?.timeoutMs ?? 0)

/**
 * The AWS SDK is imported only with a bucket configured: loaded, it holds about 3 MiB that an
 * instance storing its images in the database never uses (test/lazy-modules.test.ts).
 */
export async function makeStorage(config: StorageConfig): Promise<Storage> {
  const health = config.s3 === null ? null : makeStorageHealth(config.storageCheckIntervalMs, config.storageTimeoutMs)
  const s3 =
    config.s3 === null
      ? null
      : (await import('./s3-driver.ts')).makeS3Driver(config.s3, config.storageTimeoutMs, health!.record)
  // Every upload with a bucket configured may PUT (a row already in the bucket is PUT again even
  // while MEDIA_STORAGE=database), so every such upload takes a turn.
  const uploads = health === null ? openGate : makeUploadGate(config.storageUploadsMax, config.storageTimeoutMs, health)
  let unwatch = () => {}
  const at = (location: ImageLocation): StorageDriver => {
    if (location === 'database') return databaseDriver
    if (s3 === null)
      throw new StorageUnavailableError('read', new Error('an image is in object storage but S3_BUCKET is not set'))
    return s3
  }
  return {
    current: at(config.mediaStorage),
    at,
    s3,
    health,
    uploads,
    watch() {
      if (s3 !== null && health !== null) unwatch = health.watch(() => s3.ping())
    },
    close() {
      unwatch()
      s3?.close()
    },
  }
}
