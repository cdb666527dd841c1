// MEDIA_STORAGE=s3: image bytes in an S3-compatible bucket (AWS S3, Cloudflare R2, MinIO, Ceph RGW)
// through the official SDK. Every call is bounded by STORAGE_TIMEOUT_MS: a store that is down or
// stalls fails the call with StorageUnavailableError, which requests answer 503 with Retry-After.
import { createHash } from 'node:crypto'
import { PassThrough, pipeline, type Readable } from 'node:stream'
import {
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  ListObjectsV2Command,
  NoSuchKey,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3'
import type { S3Settings } from '../config/storage.ts'
import { StorageUnavailableError, type StorageDriver } from './driver.ts'

/** DeleteObjects takes at most 1000 keys. */
const DELETE_BATCH = 1000

export interface S3Driver extends StorageDriver {
  /** STORAGE_TIMEOUT_MS: what one call may take at most. */
  readonly timeoutMs: number
  /** The bucket answers (HeadBucket): /health's check. */
  ping(): Promise<void>
  /** Image keys of the objects under the prefix last written before `before`, a page at a time. */
  listOlderThan(before: Date): AsyncGenerator<string[]>
  /** The bytes of one object, whole (media:migrate --to database). */
  readAll(key: string): Promise<Buffer | null>
  close(): void
}

/**
 * Why a PutObject's 200 does not show the object stored, or null. Every S3-compatible store answers
 * a stored object with its ETag, which for a single PUT is the MD5 of the bytes (AWS S3 with SSE-S3
 * or none, R2, MinIO, Ceph RGW); an ETag of another form (SSE-KMS) is taken as it is. A 200 without
 * one is not the store answering (a proxy, a captive portal): believed, it would leave a row
 * pointing at an object that does not exist.
 */
export function putAnswerProblem(etag: string | undefined, md5Hex: string): string | null {
  if (etag === undefined) return 'the answer carried no ETag: the object is not known to be stored'
  const tag = etag.replaceAll('"', '').toLowerCase()
  if (/^[0-9a-f]{32}$/.test(tag) && tag !== md5Hex)
    return `the stored object's ETag ${tag} is not the MD5 of the bytes sent`
  return null
}

/**
 * The object's body, ended with StorageUnavailableError when the store sends no bytes for
 * `timeoutMs` while we are ready for them: a store that stalls mid-body would otherwise hold the
 * reader's connection (and ours to it) for as long as the client waits. A client that reads slowly
 * pauses the body (backpressure), which is not the store's stall and is not cut.
 */
function stallBounded(body: Readable, timeoutMs: number): Readable {
  const out = new PassThrough()
  let timer: NodeJS.Timeout | undefined
  const arm = () => {
    clearTimeout(timer)
    timer = setTimeout(() => {
      if (body.readableFlowing === false) arm()
      else body.destroy(new StorageUnavailableError('GetObject', new Error(`no bytes for ${timeoutMs} ms`)))
    }, timeoutMs)
  }
  arm()
  body.on('data', arm)
  // pipeline ends `out` with the body's error, so the answer is cut rather than left hanging.
  pipeline(body, out, () => clearTimeout(timer))
  return out
}

/**
 * What runs each call: aborted after `timeoutMs`; any failure becomes StorageUnavailableError (a
 * missing key stays NoSuchKey); `record` hears whether the store answered.
 */
function boundedBy(timeoutMs: number, record?: (ok: boolean) => void) {
  return async function bounded<T>(operation: string, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const controller = new AbortController()
    const timer = setTimeout(() => controller.abort(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs)
    try {
      const answer = await call(controller.signal)
      record?.(true)
      return answer
    } catch (error) {
      const answered = error instanceof NoSuchKey
      record?.(answered)
      if (answered) throw error
      throw new StorageUnavailableError(operation, controller.signal.aborted ? controller.signal.reason : error)
    } finally {
      clearTimeout(timer)
    }
  }
}

/** The SDK's client for the settings, every socket bounded by `timeoutMs`. */
function s3Client(settings: S3Settings, timeoutMs: number) {
  return new S3Client({
    region: settings.region,
    ...(settings.endpoint === null ? {} : { endpoint: settings.endpoint }),
    forcePathStyle: settings.forcePathStyle,
    // Checksums only where S3 requires them: with the default (always), the SDK sends bodies in
    // aws-chunked encoding, which several S3-compatible stores keep as the object's bytes (TRAPS.md).
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    // A socket idle this long is given up.
    requestHandler: { connectionTimeout: timeoutMs, requestTimeout: timeoutMs },
  })
}

/**
 * `record` hears the outcome of every call (storage-health.ts): true when the store answered (a
 * missing key included), false when it failed or passed `timeoutMs`.
 */
export function makeS3Driver(settings: S3Settings, timeoutMs: number, record?: (ok: boolean) => void): S3Driver {
  const client = s3Client(settings, timeoutMs)
  const objectKey = (key: string) => `${settings.prefix}${key}`
  const bounded = boundedBy(timeoutMs, record)

  async function getObject(key: string) {
    try {
      // The timer stops once the answer's head has arrived; read() bounds the body's stalls (stallBounded).
      return await bounded('GetObject', (abortSignal) =>
        client.send(new GetObjectCommand({ Bucket: settings.bucket, Key: objectKey(key) }), { abortSignal }),
      )
    } catch (error) {
      if (error instanceof NoSuchKey) return null
      throw error
    }
  }

  return {
    location: 's3',
    timeoutMs,

    async put(key, data, contentType) {
      const md5 = createHash('md5').update(data).digest()
      const answer = await bounded('PutObject', (abortSignal) =>
        client.send(
          new PutObjectCommand({
            Bucket: settings.bucket,
            Key: objectKey(key),
            Body: data,
            ContentType: contentType,
            ContentLength: data.length,
            // The store checks the bytes it received against it, and refuses them if they differ.
            ContentMD5: md5.toString('base64'),
            // What a CDN or public bucket in front sends on: the key names these bytes forever.
            CacheControl: 'public, max-age=31536000, immutable',
          }),
          { abortSignal },
        ),
      )
      const problem = putAnswerProblem(answer.ETag, md5.toString('hex'))
      if (problem !== null) throw new StorageUnavailableError('PutObject', new Error(problem))
      return null
    },

    async read(key) {
      const object = await getObject(key)
      if (object === null) return null
      return {
        kind: 'stream',
        stream: stallBounded(object.Body as Readable, timeoutMs),
        length: Number(object.ContentLength),
      }
    },

    async readAll(key) {
      const object = await getObject(key)
      if (object === null) return null
      return Buffer.from(await bounded('GetObject', () => object.Body!.transformToByteArray()))
    },

    async remove(keys) {
      for (let at = 0; at < keys.length; at += DELETE_BATCH) {
        const batch = keys.slice(at, at + DELETE_BATCH)
        const answer = await bounded('DeleteObjects', (abortSignal) =>
          client.send(
            new DeleteObjectsCommand({
              Bucket: settings.bucket,
              Delete: { Objects: batch.map((key) => ({ Key: objectKey(key) })), Quiet: true },
            }),
            { abortSignal },
          ),
        )
        // DeleteObjects answers 200 with per-key errors: a key it could not delete is a failure too.
        const failed = answer.Errors?.filter((error) => error.Code !== 'NoSuchKey') ?? []
        if (failed.length > 0)
          throw new StorageUnavailableError('DeleteObjects', new Error(`${failed.length} keys: ${failed[0]!.Code}`))
      }
    },

    ping: async () => {
      await bounded('HeadBucket', (abortSignal) =>
        client.send(new HeadBucketCommand({ Bucket: settings.bucket }), { abortSignal }),
      )
    },

    async *listOlderThan(before) {
      let token: string | undefined
      do {
        const page = await bounded('ListObjectsV2', (abortSignal) =>
          client.send(
            new ListObjectsV2Command({ Bucket: settings.bucket, Prefix: settings.prefix, ContinuationToken: token }),
            { abortSignal },
          ),
        )
        const keys = (page.Contents ?? [])
          .filter((object) => object.Key !== undefined && (object.LastModified ?? before) < before)
          .map((object) => object.Key!.slice(settings.prefix.length))
        if (keys.length > 0) yield keys
        token = page.IsTruncated ? page.NextContinuationToken : undefined
      } while (token !== undefined)
    },

    close: () => client.destroy(),
  }
}
