// The one image pipeline every upload goes through (thumbnails, media items): the limits, the work
// pool and its refusals. One pool for both, so that the bound on images decoded at once, and on the
// places one user holds, is the process's, whatever the upload is for.
import type { Config } from '../config.ts'
import { ApiError, RETRY_AFTER_SECONDS } from '../errors/api-error.ts'
import { makeRenditions, type Rendition } from './renditions.ts'
import { makeWorkPool, OwnerBusyError, PoolBusyError } from './work-pool.ts'

const retryAfter = { 'retry-after': String(RETRY_AFTER_SECONDS) }
const poolFull = () =>
  new ApiError(
    503,
    'SERVICE_UNAVAILABLE',
    'Too many images are being processed; try again shortly.',
    [{ path: 'images', message: 'The image work queue is full.' }],
    retryAfter,
  )
const ownPlacesTaken = (places: number) => {
  const message =
    places === 1
      ? 'An image of yours is being processed already.'
      : `${places} images of yours are being processed already.`
  return new ApiError(
    429,
    'RATE_LIMITED',
    `${message} Try again when it is done.`,
    [{ path: 'images', message }],
    retryAfter,
  )
}

export type ImageUploadConfig = Pick<
  Config,
  | 'imageMaxPixels'
  | 'imageFormats'
  | 'imageMaxAspectRatio'
  | 'imageMaxDecodedBytes'
  | 'imageConcurrency'
  | 'imageQueueMax'
  | 'imageJobsPerUser'
>

export function makeImageUploads(config: ImageUploadConfig) {
  const pool = makeWorkPool({
    concurrency: config.imageConcurrency,
    queueMax: config.imageQueueMax,
    perOwner: config.imageJobsPerUser,
  })
  const counts = { decoded: 0 }
  const limits = {
    accepted: config.imageFormats,
    maxPixels: config.imageMaxPixels,
    maxAspectRatio: config.imageMaxAspectRatio,
    maxDecodedBytes: config.imageMaxDecodedBytes,
  }
  return {
    /**
     * The renditions of `file`, made in a slot of the pool held for `owner`. An upload the pool
     * turned away before any work (503 pool full, 429 the owner's places taken) calls `turnedAway`
     * first: it cost nothing, and the caller gives it back to the user's allowance.
     */
    renditions: (file: Buffer, owner: string, turnedAway: () => Promise<void>): Promise<Rendition[]> =>
      makeRenditions(file, limits, { pool, owner, counts }).catch(async (error: unknown) => {
        if (error instanceof PoolBusyError || error instanceof OwnerBusyError) await turnedAway()
        if (error instanceof PoolBusyError) throw poolFull()
        if (error instanceof OwnerBusyError) throw ownPlacesTaken(config.imageJobsPerUser)
        throw error
      }),
    /** The decoding pool: its counters for metrics (and tests, which may also hold its slots). */
    pool,
    /** Images decoded (the header checks passed) since start. */
    counts: () => ({ ...counts }),
  }
}

export type ImageUploads = ReturnType<typeof makeImageUploads>
