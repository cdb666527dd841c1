// The scope table, generated from the spec: every operation that takes a bearer token, sent with a
// token of each single scope, by a user's token and by an admin's, answers as its `security` says.
// - humans only (no `apiToken` requirement): 403 API_TOKEN_NOT_ALLOWED, whatever the token;
// - a scope the operation does not list: 403 INSUFFICIENT_SCOPE, the challenge naming what it needs;
// - a scope it lists: exactly what the owner's own session gets for the same request (a 403 FORBIDDEN
//   where the `bearer` requirement names a role the owner lacks), since a token acts as its owner.
// Requests carry made-up ids and empty bodies: the decision is the security hook's, before the body
// is read; past it, both credentials meet the same 400 or 404. An operation that takes `bearer` but
// declares nothing for tokens, and is not on the humans-only list, fails here.
import { randomUUID } from 'node:crypto'
import type { InjectOptions } from 'fastify'
import t from 'tap'
import { listOperations, type OperationSpec } from '../../../src/spec.ts'
import { registerAdmin, registerUser, type Account } from '../../helpers/accounts.ts'
import { createApiToken, HUMANS_ONLY, SCOPES, type CreatedToken, type Scope } from '../../helpers/api-tokens.ts'
import { build } from '../../helpers/build.ts'

const takesBearer = (operation: OperationSpec) =>
  (operation.security ?? []).some((alternative) => 'bearer' in alternative)
const tokenScopes = (operation: OperationSpec) =>
  (operation.security ?? []).find((alternative) => 'apiToken' in alternative)?.apiToken

/** The operation's request with made-up path ids and an empty body of its type, with `auth`. */
function requestOf(method: string, path: string, operation: OperationSpec, auth: string): InjectOptions {
  const url = path.replace(/\{(\w+)\}/g, (_, name: string) => (name === 'slug' ? 'no-such-post' : randomUUID()))
  const body = operation.requestBody as { content?: Record<string, unknown> } | undefined
  const json = body?.content?.['application/json'] !== undefined
  return {
    method: method as InjectOptions['method'],
    url,
    headers: { authorization: auth },
    ...(json ? { payload: {} } : {}),
  }
}

t.test('each operation × each scope, for a user and an admin, answers as the spec declares', async (t) => {
  const app = await build(t)
  const owners: [string, Account, Scope[]][] = [
    ['user', await registerUser(app, 'scopes'), SCOPES.filter((scope) => scope !== 'admin')],
    ['admin', await registerAdmin(app), [...SCOPES]],
  ]
  const operations = listOperations().filter(({ operation }) => takesBearer(operation))
  t.ok(operations.length > 30, `${operations.length} operations take a bearer token`)

  for (const [kind, owner, scopes] of owners) {
    const tokens = new Map<Scope, CreatedToken>()
    for (const scope of scopes) tokens.set(scope, await createApiToken(app, owner, { name: scope, scopes: [scope] }))
    for (const { method, path, operation } of operations) {
      const id = operation.operationId
      const declared = tokenScopes(operation)
      if (declared === undefined && !(id in HUMANS_ONLY)) {
        t.fail(`${id}: takes bearer but declares no apiToken scopes and is not listed humans only`)
        continue
      }
      // The owner's session, for what a token that may act should get (never for humans-only
      // operations: logging out or deleting the owner would end the table).
      const asOwner = declared && (await app.inject(requestOf(method, path, operation, owner.auth.authorization)))
      for (const [scope, token] of tokens) {
        const name = `${kind}'s ${scope} token → ${id}`
        const answer = await app.inject(requestOf(method, path, operation, token.auth.authorization))
        const code = answer.statusCode === 204 ? undefined : answer.json().error?.code
        if (declared === undefined) {
          t.same([answer.statusCode, code], [403, 'API_TOKEN_NOT_ALLOWED'], name)
          t.equal(answer.headers['www-authenticate'], 'Bearer error="insufficient_scope"', `${name}: challenge`)
        } else if (!declared.includes(scope)) {
          t.same([answer.statusCode, code], [403, 'INSUFFICIENT_SCOPE'], name)
          t.equal(
            answer.headers['www-authenticate'],
            `Bearer error="insufficient_scope", scope="${declared.join(' ')}"`,
            `${name}: challenge names the scope it needs`,
          )
        } else {
          const expected = [asOwner!.statusCode, asOwner!.statusCode === 204 ? undefined : asOwner!.json().error?.code]
          t.same([answer.statusCode, code], expected, `${name}: as the owner's session (${expected.join(' ')})`)
          t.notOk(['INSUFFICIENT_SCOPE', 'API_TOKEN_NOT_ALLOWED'].includes(code), `${name}: not refused for the token`)
        }
      }
    }
  }
})
