// Which operations draw from the write budget is said in the spec, by `x-write-budget: true` on
// each (read at start-up, src/http/routes.ts). This holds the marking to its rule: every write
// (any method but GET) of every tag carries it, except the tags exempted below, and nothing else
// does; each marked operation needs a signed-in caller, documents the RateLimit and
// RateLimit-Policy fields on its success and refers its 429 to TooManyWrites. A new write, in an
// existing tag or a new one (restorePostRevision, tag `revisions`, was once left out), fails here
// until it is marked: add `x-write-budget: true`, the two headers on its 2xx and the 429 below.
// A tag whose writes are not budgeted goes into UNBUDGETED_TAGS, with why.
import t from 'tap'
import { WRITE_BUDGET_MARK } from '../../src/http/limits/write-budget.ts'
import { listOperations } from '../../src/spec.ts'

/** The tags whose writes are not content: sign-in, sessions, API tokens and the account, which have limits of their own. */
const UNBUDGETED_TAGS = ['auth', 'users', 'tokens']

const ref = (value: unknown) => (value as { $ref?: string } | undefined)?.$ref
const operations = listOperations()

t.test('every write but those of the exempted tags, and nothing else, is marked x-write-budget: true', async (t) => {
  const expected = operations
    .filter(
      ({ method, operation }) => method !== 'GET' && !operation.tags!.every((tag) => UNBUDGETED_TAGS.includes(tag)),
    )
    .map(({ operation }) => operation.operationId)
  const marked = operations
    .filter(({ operation }) => WRITE_BUDGET_MARK in operation)
    .map(({ operation }) => operation.operationId)
  t.same(marked, expected)
  for (const { operation } of operations)
    if (WRITE_BUDGET_MARK in operation) t.equal(operation[WRITE_BUDGET_MARK], true, `${operation.operationId}: true`)
})

t.test('each budgeted operation needs a caller and documents the fields and TooManyWrites', async (t) => {
  for (const { operation } of operations.filter(({ operation }) => WRITE_BUDGET_MARK in operation)) {
    const id = operation.operationId
    const security = operation.security ?? []
    t.ok(
      security.length > 0 && security.every((alternative) => Object.keys(alternative).length > 0),
      `${id}: no anonymous caller (the budget is an account's)`,
    )
    const successes = Object.entries(operation.responses).filter(([status]) => status.startsWith('2'))
    t.ok(successes.length > 0, `${id}: a success`)
    for (const [status, response] of successes) {
      const headers = (response as { headers?: Record<string, unknown> }).headers ?? {}
      t.equal(ref(headers.RateLimit), '#/components/headers/RateLimit', `${id} ${status}: RateLimit`)
      t.equal(
        ref(headers['RateLimit-Policy']),
        '#/components/headers/RateLimitPolicy',
        `${id} ${status}: RateLimit-Policy`,
      )
    }
    t.equal(ref(operation.responses['429']), '#/components/responses/TooManyWrites', `${id}: 429 TooManyWrites`)
  }
})

t.test(
  'the exempted tags are tags of the spec, and the budgeted writes include every tag with content writes',
  async (t) => {
    const tags = new Set(operations.flatMap(({ operation }) => operation.tags!))
    for (const tag of UNBUDGETED_TAGS) t.ok(tags.has(tag), `${tag} is a tag of the spec`)
    const budgetedTags = new Set(
      operations.filter(({ operation }) => WRITE_BUDGET_MARK in operation).flatMap(({ operation }) => operation.tags!),
    )
    for (const tag of ['posts', 'images', 'revisions', 'media', 'comments', 'categories', 'webhooks'])
      t.ok(budgetedTags.has(tag), `${tag}: its writes are budgeted`)
  },
)
