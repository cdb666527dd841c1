// Rate-limit counters kept in the database, so a limit holds across every instance on one
// Postgres. One atomic upsert per attempt: the window restarts when the previous one is over.
// Used directly by the login limits (login-limits.ts), and as a @fastify/rate-limit store.
import type { PrismaClient } from '../generated/prisma/client.ts'

interface Counter {
  current: number
  ttl: number
}
type Callback = (error: Error | null, result?: Counter) => void

/** Counts one more against `key` in its current window; answers the count and the ms left. */
export async function countOne(prisma: PrismaClient, key: string, timeWindowMs: number): Promise<Counter> {
  const rows = await prisma.$queryRaw<{ count: number; ttl: number }[]>`
    insert into rate_limit_counters (key, count, reset_at)
    values (${key}, 1, now() + ${timeWindowMs} * interval '1 millisecond')
    on conflict (key) do update set
      count = case when rate_limit_counters.reset_at <= now() then 1 else rate_limit_counters.count + 1 end,
      reset_at = case when rate_limit_counters.reset_at <= now() then excluded.reset_at else rate_limit_counters.reset_at end
    returning count, ceil(extract(epoch from (reset_at - now())) * 1000)::int as ttl`
  return { current: rows[0]!.count, ttl: Math.max(0, rows[0]!.ttl) }
}

export function makeRateLimitStore(prisma: PrismaClient) {
  return class DatabaseRateLimitStore {
    incr(key: string, callback: Callback, timeWindow: number) {
      countOne(prisma, key, timeWindow)
        .then((counter) => callback(null, counter))
        .catch((error: Error) => callback(error))
    }

    read(key: string, callback: Callback) {
      prisma.$queryRaw<{ count: number; ttl: number }[]>`
        select count, ceil(extract(epoch from (reset_at - now())) * 1000)::int as ttl
        from rate_limit_counters where key = ${key} and reset_at > now()`
        .then((rows) => callback(null, rows[0] ? { current: rows[0].count, ttl: Math.max(0, rows[0].ttl) } : { current: 0, ttl: 0 }))
        .catch((error: Error) => callback(error))
    }

    /** Every limiter shares the table; keys carry their own prefix. */
    child() {
      return this
    }
  }
}

/** Takes one back from a counter in its current window (a login that turned out to succeed). */
export async function releaseOne(prisma: PrismaClient, key: string) {
  await prisma.$executeRaw`update rate_limit_counters set count = greatest(count - 1, 0) where key = ${key} and reset_at > now()`
}

/** The counters as one store, for the services that take theirs (upload allowances, the clean-up). */
export function makeRateLimitCounters(prisma: PrismaClient) {
  return {
    /** Counts one more against `key` in its current window; the count and the ms left. */
    count: (key: string, windowMs: number) => countOne(prisma, key, windowMs),

    /** Takes one back from `key` in its current window. */
    release: (key: string) => releaseOne(prisma, key),

    /** Deletes up to `batchSize` counters whose window is over (an expired counter counts as absent anyway); how many. */
    deleteExpired: (batchSize: number) =>
      prisma.$executeRaw`
        delete from rate_limit_counters where key in (
          select key from rate_limit_counters where reset_at < now() limit ${batchSize})`,
  }
}

export type RateLimitCounters = ReturnType<typeof makeRateLimitCounters>
