// Password hashing with bcrypt, on worker threads. bcryptjs's async API runs on the main thread in
// 100 ms slices, and with a few logins at once the event loop runs seconds of slices between two
// polls for I/O: every other request waits behind them.
import { randomBytes } from 'node:crypto'
import { availableParallelism } from 'node:os'
import { makeWorkerPool } from '../../worker-pool.ts'

/** bcrypt reads only the first 72 bytes; longer passwords would be silently truncated. */
export const PASSWORD_MAX_BYTES = 72

/**
 * Counts a password check against the account's allowance before it runs; gives it back when it
 * matched. The auth service takes it from its caller (http/limits/login-limits.ts), which knows the address.
 */
export interface PasswordCheckLimit {
  before(email: string): Promise<void>
  accepted(email: string): Promise<void>
}

export const passwordTooLong = (password: string) => Buffer.byteLength(password, 'utf8') > PASSWORD_MAX_BYTES

export function makePasswordHasher(cost: number) {
  const pool = makeWorkerPool({
    filename: new URL('./password-worker.mjs', import.meta.url).href,
    maxThreads: availableParallelism(),
    // Threads are started on demand and let go when idle, so an idle service holds none.
    minThreads: 0,
    idleTimeout: 30_000,
  })
  let decoy: Promise<string> | undefined

  const hash = (password: string): Promise<string> => pool.run({ password, cost }, { name: 'hash' })

  return {
    hash,
    async verify(password: string, digest: string): Promise<boolean> {
      const matches: boolean = await pool.run({ password, hash: digest }, { name: 'compare' })
      // Checked after comparing, so an over-long password costs the same and never matches by truncation.
      return matches && !passwordTooLong(password)
    },
    /**
     * A hash to compare against when the email is unknown, so an unknown email and a wrong password
     * take about the same time and accounts cannot be enumerated by timing.
     */
    decoyHash: () => (decoy ??= hash(randomBytes(16).toString('hex'))),
    // Lets hashes already queued finish: their requests were accepted before shutdown began.
    close: () => pool.close(),
  }
}

export type PasswordHasher = ReturnType<typeof makePasswordHasher>
