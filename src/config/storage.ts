// Where image bytes are kept (MEDIA_STORAGE) and how the S3-compatible object store is reached.
// The S3 settings may be given while MEDIA_STORAGE=database: new bytes then go to the database,
// and images already moved to the bucket are still read from it (media:migrate --to database).
import { httpUrl } from './addresses.ts'
import { inProduction } from './production.ts'
import { ConfigError, flag, integer, oneOf, text, type Env } from './variables.ts'

export type MediaStorage = 'database' | 's3'

export interface S3Settings {
  /** An S3-compatible endpoint (MinIO, R2, Ceph RGW); null: AWS S3 itself, for the region. */
  endpoint: string | null
  region: string
  bucket: string
  /** What every object key starts with, before the image's key (default `images/`). */
  prefix: string
  /** Path-style URLs (endpoint/bucket/key), which MinIO and most self-hosted stores need. */
  forcePathStyle: boolean
}

export interface StorageConfig {
  /** Where NEW image bytes go; images keep the location they were stored at until media:migrate moves them. */
  mediaStorage: MediaStorage
  /** The bucket, when S3_BUCKET is set (required by MEDIA_STORAGE=s3). */
  s3: S3Settings | null
  /** Every call to the object store is given up after this long (uploads then answer 503). */
  storageTimeoutMs: number
  /**
   * Uploads that may call the object store at once, each holding a database connection meanwhile
   * (src/storage/upload-gate.ts); below DATABASE_POOL_MAX, so that a hanging store never takes the pool.
   */
  storageUploadsMax: number
  /** How often the bucket is checked in the background (HeadBucket) for /health and the metrics; 0: never. */
  storageCheckIntervalMs: number
  /** A CDN or public bucket serving the images: image urls are `${mediaPublicBaseUrl}/${key}`; null: getImage's path. */
  mediaPublicBaseUrl: string | null
}

/** ThumbnailSize.url's pattern for absolute urls (openapi.yaml), and its maxLength: every url we write must pass both. */
const ABSOLUTE_IMAGE_URL = /^https?:\/\/[^/?#\s]+(?:\/[^/?#\s]+)*\/[a-f0-9]{64}\.(?:webp|jpg|png|gif|avif)$/
const IMAGE_URL_MAX = 200
const LONGEST_KEY = `${'0'.repeat(64)}.avif`

/** S3 keys are at most 1024 bytes; ours are 64 hex + extension, so the prefix gets the rest with room. */
const PREFIX_MAX = 200
// A bucket name as S3 allows it (3–63 lowercase letters, digits, dots, hyphens).
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/
const REGION = /^[a-z0-9-]{1,64}$/

function s3Settings(env: Env, mediaStorage: MediaStorage): S3Settings | null {
  const bucket = text(env, 'S3_BUCKET', null, 63)
  const region = text(env, 'S3_REGION', null, 64)
  const endpoint = httpUrl(env, 'S3_ENDPOINT')
  if (bucket === null) {
    if (mediaStorage === 's3')
      throw new ConfigError('S3_BUCKET', 'is required when MEDIA_STORAGE=s3: the bucket image bytes go to', undefined)
    return null
  }
  if (!BUCKET.test(bucket)) throw new ConfigError('S3_BUCKET', 'must be an S3 bucket name', bucket)
  // AWS itself needs the region to find the bucket; S3-compatible stores mostly ignore it, so a
  // developer's MinIO may leave it unset, but production is told (as the SDK would be, less clearly).
  if (region === null && (endpoint === null || inProduction(env)))
    throw new ConfigError(
      'S3_REGION',
      endpoint === null
        ? 'is required with S3_BUCKET when S3_ENDPOINT is unset (AWS S3 finds the bucket by its region)'
        : 'is required with S3_BUCKET in production (NODE_ENV=production); S3-compatible stores take us-east-1',
      undefined,
    )
  if (region !== null && !REGION.test(region)) throw new ConfigError('S3_REGION', 'must be a region name', region)
  const prefix = text(env, 'S3_PREFIX', 'images/', PREFIX_MAX)!
  if (prefix.startsWith('/') || /[\s\\]/.test(prefix))
    throw new ConfigError('S3_PREFIX', 'must not start with / nor contain spaces or backslashes', prefix)
  return {
    endpoint: endpoint === null ? null : endpoint.href.replace(/\/+$/, ''),
    region: region ?? 'us-east-1',
    bucket,
    prefix,
    forcePathStyle: flag(env, 'S3_FORCE_PATH_STYLE', false),
  }
}

/** STORAGE_UPLOADS_MAX: half the pool by default (at least 1), and never all of it. */
function storageUploadsMax(env: Env, databasePoolMax: number): number {
  const max = integer(env, 'STORAGE_UPLOADS_MAX', Math.max(1, Math.floor(databasePoolMax / 2)), 1, 200)
  if (databasePoolMax > 1 && max >= databasePoolMax)
    throw new ConfigError(
      'STORAGE_UPLOADS_MAX',
      `must be below DATABASE_POOL_MAX (${databasePoolMax}): uploads waiting for the object store hold connections`,
      String(max),
    )
  return max
}

/** `databasePoolMax`: DATABASE_POOL_MAX, which STORAGE_UPLOADS_MAX stays below. */
export function storageConfig(env: Env, databasePoolMax: number): StorageConfig {
  const mediaStorage = oneOf<MediaStorage>(env, 'MEDIA_STORAGE', 'database', ['database', 's3'])
  const base = httpUrl(env, 'MEDIA_PUBLIC_BASE_URL')
  const baseText = base === null ? null : base.href.replace(/\/+$/, '')
  if (baseText !== null) {
    const sample = `${baseText}/${LONGEST_KEY}`
    if (sample.length > IMAGE_URL_MAX || !ABSOLUTE_IMAGE_URL.test(sample))
      throw new ConfigError(
        'MEDIA_PUBLIC_BASE_URL',
        `must be at most ${IMAGE_URL_MAX - LONGEST_KEY.length - 1} characters, with no empty path segments`,
        env.MEDIA_PUBLIC_BASE_URL,
      )
  }
  // Pages served over https do not load images from http: production is told at start-up, not by readers.
  if (base !== null && base.protocol !== 'https:' && inProduction(env))
    throw new ConfigError(
      'MEDIA_PUBLIC_BASE_URL',
      'must be https in production (NODE_ENV=production)',
      env.MEDIA_PUBLIC_BASE_URL,
    )
  return {
    mediaStorage,
    s3: s3Settings(env, mediaStorage),
    storageTimeoutMs: integer(env, 'STORAGE_TIMEOUT_MS', 5000, 100, 120_000),
    storageUploadsMax: storageUploadsMax(env, databasePoolMax),
    storageCheckIntervalMs: integer(env, 'STORAGE_CHECK_INTERVAL_MS', 5000, 0, 600_000),
    // Without its trailing slash: urls are `${base}/${key}`.
    mediaPublicBaseUrl: baseText,
  }
}
