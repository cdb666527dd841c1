// Thumbnail uploads per user and window: each one is read into memory and decoded, so an account
// (and registration is open) gets a bounded number of them. Counted in the database with the same
// store as the login limits (src/auth/rate-limit-store.ts), so the limit holds across instances.
// Every upload the user may make counts, accepted or not: the cost is paid before we know. One
// that the image work pool turned away before any work on it (503 pool full, 429 the user's places
// taken) is given back: it cost nothing but its bytes, and a client that follows Retry-After must
// not spend its allowance on waiting.
import type { Config } from '../../config.ts'
import { ApiError } from '../../errors/api-error.ts'
import type { RateLimitStore } from '../../auth/rate-limit-store.ts'

function tooMany(max: number, ttlMs: number) {
  const seconds = String(Math.max(1, Math.ceil(ttlMs / 1000)))
  return new ApiError(429, 'RATE_LIMITED', `Too many uploads; try again in ${seconds} s.`, [], {
    'retry-after': seconds,
    'ratelimit-limit': String(max),
    'ratelimit-remaining': '0',
    'ratelimit-reset': seconds,
  })
}

export function makeUploadRate(
  counters: RateLimitStore,
  config: Pick<Config, 'uploadRatePerUser' | 'uploadRateWindowSeconds'>,
) {
  const window = config.uploadRateWindowSeconds * 1000
  const key = (userId: string) => `upload:user:${userId}`
  return {
    /** Counts one upload by `userId`; 429 RATE_LIMITED once the window's allowance is spent. */
    async count(userId: string): Promise<void> {
      const { current, ttl } = await counters.countOne(key(userId), window)
      if (current > config.uploadRatePerUser) throw tooMany(config.uploadRatePerUser, ttl)
    },
    /** Gives back one counted upload of `userId` in the current window. */
    refund: (userId: string) => counters.releaseOne(key(userId)),
  }
}

export type UploadRate = ReturnType<typeof makeUploadRate>
