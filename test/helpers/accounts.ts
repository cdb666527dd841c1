// Accounts made the way clients make them: over HTTP. Each call makes a fresh, unique user.
import { randomUUID } from 'node:crypto'
import type { FastifyInstance } from 'fastify'

export interface Account {
  id: string
  email: string
  password: string
  accessToken: string
  refreshToken: string
  auth: { authorization: string }
}

export const uniqueEmail = (label = 'user') => `${label}-${randomUUID()}@example.com`

export async function registerUser(app: FastifyInstance, label = 'user', email = uniqueEmail(label)): Promise<Account> {
  const password = `pw-${randomUUID()}`
  const response = await app.inject({
    method: 'POST',
    url: '/register',
    payload: { email, password, name: `Test ${label}` },
  })
  if (response.statusCode !== 201) throw new Error(`register failed: ${response.statusCode} ${response.body}`)
  const { data } = response.json()
  return {
    id: data.user.id,
    email,
    password,
    accessToken: data.accessToken,
    refreshToken: data.refreshToken,
    auth: { authorization: `Bearer ${data.accessToken}` },
  }
}

export async function login(app: FastifyInstance, email: string, password: string) {
  return app.inject({ method: 'POST', url: '/login', payload: { email, password } })
}

/** An admin, made as operators make one: `npm run user:admin` promotes a registered account. */
export async function registerAdmin(app: FastifyInstance): Promise<Account> {
  const account = await registerUser(app, 'admin')
  await app.services.auth.ensureAdmin(account.email, null)
  return account
}
