// The one small interface both places image bytes can be kept implement: the database (bytes in
// images.data) and an S3-compatible bucket (bytes at `${S3_PREFIX}${key}`, images.data null).
// Every images row stays in the database wherever its bytes are: its `location` says where.
import type { Readable } from 'node:stream'
import type { MediaStorage } from '../config/storage.ts'
import { ApiError, RETRY_AFTER_SECONDS } from '../errors/api-error.ts'

/** An image's bytes as read: the database's in memory, the bucket's as a stream never held whole. */
/** Where an image's bytes are: the images.location column's values, which are MEDIA_STORAGE's. */
export type ImageLocation = MediaStorage

export type ImageBytes = { kind: 'buffer'; data: Buffer } | { kind: 'stream'; stream: Readable; length: number }

export interface StorageDriver {
  readonly location: ImageLocation
  /**
   * Keeps a new image's bytes; returns what goes into images.data: the bytes (database), or null
   * once the object is stored (s3). Idempotent: keys are content-addressed.
   */
  put(key: string, data: Buffer, contentType: string): Promise<Buffer | null>
  /** The bytes of an image stored here; `data` is the row's images.data (null outside the database). */
  read(key: string, data: Uint8Array | null): Promise<ImageBytes | null>
  /** Deletes the bytes of images whose rows are being deleted (the database's go with their rows). */
  remove(keys: string[]): Promise<void>
}

/** What an object-store call throws when the store is unreachable, fails, or passes STORAGE_TIMEOUT_MS. */
export class StorageUnavailableError extends Error {
  constructor(operation: string, cause: unknown) {
    super(`object storage ${operation} failed: ${(cause as Error | undefined)?.message ?? String(cause)}`, { cause })
    this.name = 'StorageUnavailableError'
  }
}

/** The answer to a request whose object-store call failed: nothing was half-written, retry later. */
export const storageUnavailable = () =>
  new ApiError(
    503,
    'SERVICE_UNAVAILABLE',
    'Image storage is temporarily unavailable; try again shortly.',
    [{ path: 'storage', message: 'The object store cannot be reached or did not answer in time.' }],
    { 'retry-after': String(RETRY_AFTER_SECONDS) },
  )
