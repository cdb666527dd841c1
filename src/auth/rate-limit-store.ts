// Rate-limit counters kept in the database, so a limit holds across every instance on one
// Postgres. One atomic upsert per attempt: the window restarts when the previous one is over.
// Counted with by the login limits (http/limits/login-limits.ts, which also hands the counters to
// @fastify/rate-limit) and the upload limit (content/thumbnails/upload-rate.ts); cleaned by the account
// clean-up (auth/account-cleanup.ts).
import type { PrismaClient } from '../generated/prisma/client.ts'

export interface Counter {
  current: number
  ttl: number
}

export function makeRateLimitStore(prisma: PrismaClient) {
  return {
    /** Counts one more against `key` in its current window; answers the count and the ms left. */
    async countOne(key: string, timeWindowMs: number): Promise<Counter> {
      const rows = await prisma.$queryRaw<{ count: number; ttl: number }[]>`
        insert into rate_limit_counters (key, count, reset_at)
        values (${key}, 1, now() + ${timeWindowMs} * interval '1 millisecond')
        on conflict (key) do update set
          count = case when rate_limit_counters.reset_at <= now() then 1 else rate_limit_counters.count + 1 end,
          reset_at = case when rate_limit_counters.reset_at <= now() then excluded.reset_at else rate_limit_counters.reset_at end
        returning count, ceil(extract(epoch from (reset_at - now())) * 1000)::int as ttl`
      return { current: rows[0]!.count, ttl: Math.max(0, rows[0]!.ttl) }
    },

    /** The count of `key` in its current window, without counting; zero when no window is running. */
    async read(key: string): Promise<Counter> {
      const rows = await prisma.$queryRaw<{ count: number; ttl: number }[]>`
        select count, ceil(extract(epoch from (reset_at - now())) * 1000)::int as ttl
        from rate_limit_counters where key = ${key} and reset_at > now()`
      return rows[0] ? { current: rows[0].count, ttl: Math.max(0, rows[0].ttl) } : { current: 0, ttl: 0 }
    },

    /** Takes one back from a counter in its current window (a login that turned out to succeed). */
    async releaseOne(key: string): Promise<void> {
      await prisma.$executeRaw`update rate_limit_counters set count = greatest(count - 1, 0) where key = ${key} and reset_at > now()`
    },

    /** Deletes up to `batchSize` counters whose window is over (an expired counter counts as absent anyway); how many. */
    deleteExpired: (batchSize: number) =>
      prisma.$executeRaw`
        delete from rate_limit_counters where key in (
          select key from rate_limit_counters where reset_at < now() limit ${batchSize})`,
  }
}

export type RateLimitStore = ReturnType<typeof makeRateLimitStore>
