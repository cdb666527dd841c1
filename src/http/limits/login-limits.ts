// Login attempts limited per client address (every attempt counts), failed password checks per
// account from one address (tight) and per account from all addresses together (loose), and
// registrations per address. The tight limit is per (account, address) so that an attacker who
// spends it locks out only themselves, not the account's owner; the account-wide one is much
// higher and still stops a guesser spread over many addresses. Addresses are counted as
// auth/client-address.ts says (an IPv6 client by its /64).
// A password check is counted before it runs and given back when it matched: counted afterwards,
// a burst of concurrent guesses would all reach bcrypt before any of them was counted. PATCH /me's
// and DELETE /me's currentPassword are checked under the same allowances as a login: the address
// counts every one. Session requests (GET /me/sessions, DELETE /me/sessions/{id}) have their own
// small limits per account and per address.
// The counters live in the database (auth/rate-limit-store.ts), so the limits hold across instances.
// Past a limit: 429 RATE_LIMITED with Retry-After.
import fastifyRateLimit from '@fastify/rate-limit'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { addressKey } from '../../auth/client-address.ts'
import { normaliseEmail } from '../../auth/email.ts'
import type { PasswordCheckLimit } from '../../auth/passwords/passwords.ts'
import type { Counter, RateLimitStore } from '../../auth/rate-limit-store.ts'
import type { Config } from '../../config.ts'
import { ApiError } from '../../errors/api-error.ts'

const accountKey = (email: string) => `login:account:${normaliseEmail(String(email))}`
const accountAddressKey = (email: string, ip: string) =>
  `login:account-address:${normaliseEmail(String(email))}:${addressKey(ip)}`

/** Counts one against `key` in its window; past `max`, 429 with the time left. */
export async function spendOne(store: RateLimitStore, key: string, max: number, windowMs: number, what: string) {
  const { current, ttl } = await store.countOne(key, windowMs)
  if (current > max) throw tooMany(max, ttl, what)
}

export function tooMany(max: number, ttlMs: number, what: string) {
  const seconds = String(Math.max(1, Math.ceil(ttlMs / 1000)))
  return new ApiError(429, 'RATE_LIMITED', `Too many ${what}; try again in ${seconds} s.`, [], {
    'retry-after': seconds,
    'ratelimit-limit': String(max),
    'ratelimit-remaining': '0',
    'ratelimit-reset': seconds,
  })
}

type Callback = (error: Error | null, result?: Counter) => void

/** The counters in the shape of a @fastify/rate-limit store (callbacks, a class it instantiates). */
function pluginStore(store: RateLimitStore) {
  return class DatabaseRateLimitStore {
    incr(key: string, callback: Callback, timeWindow: number) {
      store
        .countOne(key, timeWindow)
        .then((counter) => callback(null, counter))
        .catch((error: Error) => callback(error))
    }

    read(key: string, callback: Callback) {
      store
        .read(key)
        .then((counter) => callback(null, counter))
        .catch((error: Error) => callback(error))
    }

    /** Every limiter shares the table; keys carry their own prefix. */
    child() {
      return this
    }
  }
}

export async function makeLoginLimits(app: FastifyInstance, store: RateLimitStore, config: Config) {
  // The same counters, as a @fastify/rate-limit store: app.createRateLimit for other limits.
  await app.register(fastifyRateLimit, { global: false, store: pluginStore(store) })
  const window = config.loginLimitWindowSeconds * 1000

  /** Counts one against `key`; refuses past `max`. */
  const spend = (key: string, max: number, windowMs: number, what: string) => spendOne(store, key, max, windowMs, what)

  /** Every password check from an address, whatever the account and the outcome. */
  const spendAddress = (request: FastifyRequest) =>
    spend(
      `login:address:${addressKey(request.ip)}`,
      config.loginLimitPerAddress,
      window,
      'login attempts from this address',
    )

  const passwordCheck = (ip: string): PasswordCheckLimit => ({
    async before(email) {
      const pairKey = accountAddressKey(email, ip)
      await spend(
        pairKey,
        config.loginLimitPerAccountAddress,
        window,
        'failed sign-ins for this account from this address',
      )
      try {
        await spend(accountKey(email), config.loginLimitPerAccount, window, 'failed sign-ins for this account')
      } catch (error) {
        // Refused before any check: it must not keep this address waiting once the account's window ends.
        await store.releaseOne(pairKey)
        throw error
      }
    },
    async accepted(email) {
      await Promise.all([store.releaseOne(accountAddressKey(email, ip)), store.releaseOne(accountKey(email))])
    },
  })

  return {
    /** Counts the attempt against the address, then the password check against the account. */
    async beforeLogin(request: FastifyRequest) {
      await spendAddress(request)
      await passwordCheck(request.ip).before((request.body as { email: string }).email)
    },
    /** Gives the account back the check counted by beforeLogin: only failures use up its allowance. */
    async loginSucceeded(request: FastifyRequest) {
      await passwordCheck(request.ip).accepted((request.body as { email: string }).email)
    },
    /** The account allowance for a password checked elsewhere (PATCH /me's currentPassword). */
    passwordCheck: (request: FastifyRequest) => passwordCheck(request.ip),
    /**
     * A PATCH /me that carries a currentPassword counts against the address as a login attempt
     * does, right or wrong: each is bcrypt work (a check and a new hash), and the account's
     * allowance gives right ones back, so nothing else bounds a caller who knows the password.
     */
    beforeCurrentPasswordCheck: spendAddress,
    /**
     * listSessions and revokeSession, per account and per address in a minute: cheap each, but
     * a signed-in caller must not be able to make them a load of their own.
     */
    async beforeSessionRequest(request: FastifyRequest) {
      await spend(
        `sessions:address:${addressKey(request.ip)}`,
        config.sessionsLimitPerAddress,
        60_000,
        'session requests from this address',
      )
      await spend(
        `sessions:account:${request.principal!.userId}`,
        config.sessionsLimitPerAccount,
        60_000,
        'session requests for this account',
      )
    },
    async beforeRegister(request: FastifyRequest) {
      await spend(
        `register:address:${addressKey(request.ip)}`,
        config.registerLimitPerAddress,
        3_600_000,
        'registrations from this address',
      )
    },
  }
}

export type LoginLimits = Awaited<ReturnType<typeof makeLoginLimits>>
