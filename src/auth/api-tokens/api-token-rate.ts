// Each API token's own rate limit: API_TOKEN_RATE_LIMIT requests per API_TOKEN_RATE_WINDOW_SECONDS,
// counted by each instance in its own memory. Counting in the database, as the login limits do,
// would add a write to a shared row on every request made with a token, more than the whole check
// of a JWT costs (issue point 5); so the limit is per instance, and a fleet of n instances behind a
// balancer lets a token make up to n times as many. Counted by the token's hash, and only for
// tokens found: refused before the database read once spent (a token that keeps going costs no
// read), and the garbage an attacker can send (any well-formed, checksummed string) makes no entry.
import { LRUCache } from 'lru-cache'
import type { Config } from '../../config.ts'
import { ApiError } from '../../errors/api-error.ts'

/** Tokens whose windows are counted at once; past it the least recently used lose their count. */
const TOKENS_COUNTED = 10_000

interface Window {
  count: number
  resetAt: number
}

function tooMany(max: number, resetAt: number) {
  const seconds = String(Math.max(1, Math.ceil((resetAt - Date.now()) / 1000)))
  return new ApiError(429, 'RATE_LIMITED', `Too many requests with this API token; try again in ${seconds} s.`, [], {
    'retry-after': seconds,
    'ratelimit-limit': String(max),
    'ratelimit-remaining': '0',
    'ratelimit-reset': seconds,
  })
}

export function makeApiTokenRate(config: Pick<Config, 'apiTokenRateLimit' | 'apiTokenRateWindowSeconds'>) {
  const max = config.apiTokenRateLimit
  const windowMs = config.apiTokenRateWindowSeconds * 1000
  const windows = new LRUCache<string, Window>({ max: TOKENS_COUNTED })
  /** The token's window, if one is running. */
  const running = (key: string) => {
    const window = windows.get(key)
    return window !== undefined && window.resetAt > Date.now() ? window : undefined
  }
  return {
    /** Before the token is looked up: 429 once its window's allowance is spent. */
    before(key: string): void {
      const window = running(key)
      if (window !== undefined && window.count >= max) throw tooMany(max, window.resetAt)
    },
    /** Counts one request of a token that was found; 429 past the allowance. */
    spend(key: string): void {
      const window = running(key)
      if (window === undefined) {
        windows.set(key, { count: 1, resetAt: Date.now() + windowMs })
        return
      }
      if (window.count >= max) throw tooMany(max, window.resetAt)
      window.count++
    },
  }
}

export type ApiTokenRate = ReturnType<typeof makeApiTokenRate>
