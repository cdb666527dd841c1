// What a sign-in (login, register) records about its client: the User-Agent header and the address
// Fastify resolved (request.ip, which follows X-Forwarded-For only from TRUST_PROXY's proxies, as
// the per-address limits do). auth/sessions/session-details.ts bounds both before they are stored.
import type { FastifyRequest } from 'fastify'
import type { SignInClient } from '../auth/sessions/session-details.ts'

export const signInClient = (request: FastifyRequest): SignInClient => ({
  userAgent: request.headers['user-agent'],
  address: request.ip,
})
