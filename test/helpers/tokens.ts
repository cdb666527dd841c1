// Access tokens made the way a client could never make them: for testing how the service refuses them.
import { createHmac, randomUUID } from 'node:crypto'

const base64url = (value: object | string) =>
  Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url')

export interface TokenParts {
  header?: Record<string, unknown>
  claims?: Record<string, unknown>
  secret?: string
}

/** An HS256 token signed with `secret`, claims merged over sane defaults for the test config. */
export function signToken({
  header = {},
  claims = {},
  secret = 'test-secret-test-secret-test-secret-0123',
}: TokenParts = {}) {
  const now = Math.floor(Date.now() / 1000)
  const head = base64url({ alg: 'HS256', typ: 'JWT', ...header })
  const body = base64url({
    sub: randomUUID(),
    role: 'user',
    sid: randomUUID(),
    iss: 'blog-api',
    aud: 'blog-api-clients',
    iat: now,
    exp: now + 600,
    ...claims,
  })
  const signature = createHmac('sha256', secret).update(`${head}.${body}`).digest('base64url')
  return `${head}.${body}.${signature}`
}

export function unsignedToken(claims: Record<string, unknown> = {}) {
  const [head, body] = signToken({ header: { alg: 'none' }, claims }).split('.')
  return `${head}.${body}.`
}
