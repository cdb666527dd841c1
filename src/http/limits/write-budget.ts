// Each account's write budget: every operation the spec marks `x-write-budget: true` (the writes
// of posts, thumbnails, revisions (a restore), media, comments, categories and webhooks) draws one from
// WRITE_BUDGET (WRITE_BUDGET_ADMIN for admins) per WRITE_BUDGET_WINDOW_SECONDS. Counted in the
// database (auth/rate-limit-store.ts, key `write-budget:<userId>`, one upsert a write), so the
// budget holds across every instance; keyed by the account, so every session and API token of it
// (a token's principal is its owner) draws from the same budget.
// It runs as the route's last onRequest hook: after the caller is known (security.ts) and the
// body's media type accepted, before any byte of the body is read or parsed. A refused write costs
// its authentication and this upsert, nothing more; a write refused earlier (401, 403, 415) costs
// no upsert. Every answer after it, success or not, carries the IETF httpapi draft's RateLimit and
// RateLimit-Policy fields (draft-ietf-httpapi-ratelimit-headers, -08 to -11) so clients can pace
// themselves. Past the budget: 429 RATE_LIMITED with Retry-After.
import type { onRequestHookHandler } from 'fastify'
import type { RateLimitStore } from '../../auth/rate-limit-store.ts'
import type { Config } from '../../config.ts'
import { ApiError } from '../../errors/api-error.ts'
import type { OperationSpec } from '../../spec.ts'

/** The spec's mark on an operation that draws from the write budget. */
export const WRITE_BUDGET_MARK = 'x-write-budget'

/** The policy's name in both fields: one policy today, named so that more can join it. */
const POLICY = '"writes"'

export const drawsFromWriteBudget = (operation: OperationSpec) => operation[WRITE_BUDGET_MARK] === true

type BudgetConfig = Pick<Config, 'writeBudget' | 'writeBudgetAdmin' | 'writeBudgetWindowSeconds'>

export function makeWriteBudget(counters: RateLimitStore, config: BudgetConfig) {
  const windowMs = config.writeBudgetWindowSeconds * 1000
  // Each role's RateLimit-Policy is the same string on every answer: made once.
  const policy = (quota: number) => `${POLICY};q=${quota};w=${config.writeBudgetWindowSeconds}`
  const roles = {
    user: { quota: config.writeBudget, policy: policy(config.writeBudget) },
    admin: { quota: config.writeBudgetAdmin, policy: policy(config.writeBudgetAdmin) },
  }

  /** Counts the caller's write; sets the fields on the answer; 429 once the window's budget is spent. */
  const hook: onRequestHookHandler = (request, reply, done) => {
    const principal = request.principal
    // Every budgeted operation needs a signed-in caller (test/structure/write-budget.test.ts);
    // an anonymous one was refused before this hook.
    if (principal === null) {
      done()
      return
    }
    const { quota, policy } = roles[principal.role]
    counters.countOne(`write-budget:${principal.userId}`, windowMs).then(({ current, ttl }) => {
      // reset_at is kept to the millisecond, rounded: a window just begun can show a hair over its length.
      const seconds = Math.min(config.writeBudgetWindowSeconds, Math.ceil(ttl / 1000))
      const fields = {
        'ratelimit-policy': policy,
        ratelimit: `${POLICY};r=${Math.max(0, quota - current)};t=${seconds}`,
      }
      reply.headers(fields)
      if (current <= quota) {
        done()
        return
      }
      const wait = String(Math.max(1, seconds))
      done(
        new ApiError(429, 'RATE_LIMITED', `Too many writes by this account; try again in ${wait} s.`, [], {
          ...fields,
          'retry-after': wait,
        }),
      )
    }, done)
  }
  return { hook }
}

export type WriteBudget = ReturnType<typeof makeWriteBudget>
