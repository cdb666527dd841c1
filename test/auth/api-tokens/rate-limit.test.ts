// Each token's own rate limit: API_TOKEN_RATE_LIMIT requests per API_TOKEN_RATE_WINDOW_SECONDS,
// then 429 RATE_LIMITED with Retry-After and the rate-limit headers, for that token alone (its
// owner's other tokens and sessions go on). Once spent, a token is refused before its lookup: on
// PostgreSQL the refusal is counted at no statement. Counted per instance (documented so).
import t from 'tap'
import { build, usingPostgres } from '../../helpers/build.ts'
import { registerUser } from '../../helpers/accounts.ts'
import { createApiToken } from '../../helpers/api-tokens.ts'
import { eventually } from '../../helpers/images.ts'
import { statementsOf } from '../../helpers/statements.ts'

t.test('a token past its allowance gets 429 until its window ends; nothing else does', async (t) => {
  const app = await build(t, { API_TOKEN_RATE_LIMIT: '3', API_TOKEN_RATE_WINDOW_SECONDS: '2' })
  const owner = await registerUser(app)
  const [busy, quiet] = [await createApiToken(app, owner), await createApiToken(app, owner)]
  const read = (headers: { authorization: string }) => app.inject({ method: 'GET', url: '/posts', headers })

  for (let request = 1; request <= 3; request++) t.equal((await read(busy.auth)).statusCode, 200, `request ${request}`)
  const refused = await read(busy.auth)
  t.equal(refused.statusCode, 429)
  t.equal(refused.json().error.code, 'RATE_LIMITED')
  t.match(refused.json().error.message, /^Too many requests with this API token; try again in [12] s\.$/)
  t.match(refused.headers, { 'retry-after': /^[12]$/, 'ratelimit-limit': '3', 'ratelimit-remaining': '0' })
  t.equal((await read(quiet.auth)).statusCode, 200, "the owner's other token is not limited")
  t.equal((await read(owner.auth)).statusCode, 200, 'nor their session')
  if (usingPostgres) {
    const { count } = await statementsOf(async () => t.equal((await read(busy.auth)).statusCode, 429))
    t.equal(count, 0, 'a spent token is refused before its lookup')
  }
  t.ok(await eventually(async () => (await read(busy.auth)).statusCode === 200), 'served again once its window ends')
})
