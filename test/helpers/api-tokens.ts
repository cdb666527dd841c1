// API tokens made the way clients make them: over HTTP, by a person signed in with a password.
import type { FastifyInstance } from 'fastify'
import type { Account } from './accounts.ts'

export type Scope = 'content:read' | 'content:write' | 'account:read' | 'admin'
export const SCOPES: readonly Scope[] = ['content:read', 'content:write', 'account:read', 'admin']

export interface CreatedToken {
  id: string
  userId: string
  name: string
  scopes: Scope[]
  prefix: string
  createdAt: string
  expiresAt: string | null
  lastUsedAt: string | null
  token: string
  /** The Authorization header that carries it. */
  auth: { authorization: string }
}

export async function createApiToken(
  app: FastifyInstance,
  owner: Account,
  payload: { name?: string; scopes?: Scope[]; expiresAt?: string } = {},
): Promise<CreatedToken> {
  const response = await app.inject({
    method: 'POST',
    url: '/me/tokens',
    headers: owner.auth,
    payload: { name: 'An integration', scopes: ['content:read'], ...payload },
  })
  if (response.statusCode !== 201) throw new Error(`createApiToken: ${response.statusCode} ${response.body}`)
  const data = response.json().data as Omit<CreatedToken, 'auth'>
  return { ...data, auth: { authorization: `Bearer ${data.token}` } }
}

/**
 * The operations that take a bearer access token but deliberately no API token, each with why. An
 * operation of the spec that takes `bearer` must list `apiToken` scopes or be named here
 * (test/structure/api-token-scopes.test.ts); test/auth/api-tokens/scope-table.test.ts expects each
 * to refuse every token with 403 API_TOKEN_NOT_ALLOWED.
 */
export const HUMANS_ONLY: Record<string, string> = {
  // Sessions are a person's sign-ins: a token has none to end or list.
  logout: 'ends the session of the access token used',
  listSessions: "a person's sign-ins",
  revokeSession: "a person's sign-ins",
  // Credentials and the account's life: a leaked token must not take the account over or end it.
  updateCurrentUser: 'changes the email or password (and the name, in the same operation)',
  deleteCurrentUser: 'deletes the account',
  requestEmailVerification: "mails the account's address, part of changing it",
  // Rights: a token never grants more than its owner has; making admins would.
  updateUser: "changes a user's role",
  // The tokens themselves: a token cannot make, see or end tokens.
  listApiTokens: 'the tokens themselves',
  createApiToken: 'the tokens themselves',
  revokeApiToken: 'the tokens themselves',
  listAllApiTokens: 'the tokens themselves',
  revokeAnyApiToken: 'the tokens themselves',
}
