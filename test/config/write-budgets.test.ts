// The write budgets' settings (src/config/write-budgets.ts): their defaults, the admins' budget
// following a raised users' one when unset, and every bad value refused with its variable named.
import t from 'tap'
import { ConfigError, loadConfig } from '../../src/config.ts'

const load = (env: Record<string, string>) => loadConfig({ DATA_DIR: 'memory:', ...env })

t.test('defaults: 120 writes a minute for users, 1 200 for admins', async (t) => {
  t.match(load({}), { writeBudget: 120, writeBudgetAdmin: 1200, writeBudgetWindowSeconds: 60 })
})

t.test("unset, the admins' budget is never below the users'", async (t) => {
  t.match(load({ WRITE_BUDGET: '5000' }), { writeBudget: 5000, writeBudgetAdmin: 5000 })
  t.match(load({ WRITE_BUDGET: '10', WRITE_BUDGET_ADMIN: '10' }), { writeBudget: 10, writeBudgetAdmin: 10 })
  t.match(load({ WRITE_BUDGET_ADMIN: '150', WRITE_BUDGET_WINDOW_SECONDS: '3600' }), {
    writeBudget: 120,
    writeBudgetAdmin: 150,
    writeBudgetWindowSeconds: 3600,
  })
})

t.test('each bad value names its variable; there is no 0 to turn the budget off', async (t) => {
  const refused: [Record<string, string>, RegExp][] = [
    [{ WRITE_BUDGET: '0' }, /WRITE_BUDGET must be an integer from 1 to 1000000/],
    [{ WRITE_BUDGET: '1000001' }, /WRITE_BUDGET must be an integer from 1 to 1000000/],
    [{ WRITE_BUDGET: 'many' }, /WRITE_BUDGET must be an integer/],
    [{ WRITE_BUDGET_ADMIN: '0' }, /WRITE_BUDGET_ADMIN must be an integer from 1 to 1000000/],
    [{ WRITE_BUDGET: '200', WRITE_BUDGET_ADMIN: '100' }, /WRITE_BUDGET_ADMIN must be at least WRITE_BUDGET \(200\)/],
    [{ WRITE_BUDGET_WINDOW_SECONDS: '0' }, /WRITE_BUDGET_WINDOW_SECONDS must be an integer from 1 to 86400/],
    [{ WRITE_BUDGET_WINDOW_SECONDS: '86401' }, /WRITE_BUDGET_WINDOW_SECONDS must be an integer from 1 to 86400/],
  ]
  for (const [env, message] of refused) {
    t.throws(() => load(env), message, JSON.stringify(env))
    t.throws(() => load(env), ConfigError)
  }
})
