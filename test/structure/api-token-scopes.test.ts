// Every operation that takes a bearer access token says what an API token may do there: it lists
// the `apiToken` scopes it accepts, or it is on the deliberate "humans only" list
// (test/helpers/api-tokens.ts, each with why). A new operation added with `bearer` alone fails here
// until someone decides, instead of refusing tokens by default without anyone having said so.
import t from 'tap'
import { listOperations, loadSpec } from '../../src/spec.ts'
import { HUMANS_ONLY, SCOPES } from '../helpers/api-tokens.ts'

const operations = listOperations()
const declared = (security: Record<string, string[]>[] = []) =>
  security.filter((alternative) => 'apiToken' in alternative)

t.test('an operation with bearer lists apiToken scopes or is humans only, never both', async (t) => {
  for (const { operation } of operations) {
    const security = operation.security ?? []
    if (!security.some((alternative) => 'bearer' in alternative)) {
      t.same(declared(security), [], `${operation.operationId}: no apiToken without bearer`)
      continue
    }
    const tokens = declared(security)
    const humansOnly = operation.operationId in HUMANS_ONLY
    t.ok(
      tokens.length > 0 !== humansOnly,
      `${operation.operationId}: ${tokens.length > 0 ? 'takes API tokens' : 'takes none'}${humansOnly ? ', and is listed humans only' : ''}`,
    )
  }
})

t.test('each apiToken requirement is one alternative of known scopes, beside bearer alone', async (t) => {
  for (const { operation } of operations) {
    const tokens = declared(operation.security)
    if (tokens.length === 0) continue
    t.equal(tokens.length, 1, `${operation.operationId}: one apiToken alternative (its scopes name the challenge)`)
    for (const alternative of tokens) {
      t.same(Object.keys(alternative), ['apiToken'], `${operation.operationId}: apiToken on its own`)
      t.ok(alternative.apiToken!.length > 0, `${operation.operationId}: at least one scope`)
      for (const scope of alternative.apiToken!)
        t.ok(SCOPES.includes(scope as never), `${operation.operationId}: ${scope}`)
    }
  }
})

t.test('the scopes the tests know are the spec’s, and the humans-only list names real operations', async (t) => {
  const spec = loadSpec()
  t.same(spec.components.schemas.ApiTokenScope!.enum, SCOPES)
  const ids = operations.map(({ operation }) => operation.operationId)
  t.same(
    Object.keys(HUMANS_ONLY).filter((id) => !ids.includes(id)),
    [],
  )
})
