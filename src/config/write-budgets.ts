// The write budgets per account (src/http/limits/write-budget.ts): how many writes one account may
// make per window. The defaults are far above what a person writing by hand does (a post, a few
// comments, an editor's autosave every few seconds is 12 a minute) and far below what a script
// can send (thousands a second): 120 a minute lets an honest burst through, such as a batch of
// comments answered or a migration run at 2 writes a second, and caps one account at a sliver
// of a server's write capacity. Admins moderate and import in bulk: ten times as many.
import { ConfigError, integer, type Env } from './variables.ts'

const MAX_BUDGET = 1_000_000

export function writeBudgets(env: Env) {
  const writeBudget = integer(env, 'WRITE_BUDGET', 120, 1, MAX_BUDGET)
  // Unset, the admins' budget follows a raised user budget, so it is never the smaller one.
  const writeBudgetAdmin = integer(env, 'WRITE_BUDGET_ADMIN', Math.max(1200, writeBudget), 1, MAX_BUDGET)
  if (writeBudgetAdmin < writeBudget)
    throw new ConfigError(
      'WRITE_BUDGET_ADMIN',
      `must be at least WRITE_BUDGET (${writeBudget})`,
      String(writeBudgetAdmin),
    )
  return {
    writeBudget,
    writeBudgetAdmin,
    writeBudgetWindowSeconds: integer(env, 'WRITE_BUDGET_WINDOW_SECONDS', 60, 1, 86_400),
  }
}
