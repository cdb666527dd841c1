// Login attempts limited per client address (every attempt counts) and per account (failed
// attempts count), registrations per address. An account's attempt is counted before its password
// is checked and given back when it succeeds: counted afterwards, a burst of concurrent guesses
// would all pass the check before any of them was counted. The counters live in the database
// (rate-limit-store.ts), so the limits hold across instances. Past a limit: 429 RATE_LIMITED with
// Retry-After.
import fastifyRateLimit from '@fastify/rate-limit'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Config } from '../config.ts'
import type { PrismaClient } from '../generated/prisma/client.ts'
import { ApiError } from '../http/api-error.ts'
import { makeRateLimitStore, releaseOne } from './rate-limit-store.ts'

interface LimitStatus {
  max: number
  remaining: number
  ttlInSeconds: number
}

const accountKey = (request: FastifyRequest) => `login:account:${String((request.body as { email?: string }).email).trim().toLowerCase()}`

function tooMany(status: LimitStatus, what: string) {
  const seconds = String(Math.max(1, status.ttlInSeconds))
  return new ApiError(429, 'RATE_LIMITED', `Too many ${what}; try again in ${seconds} s.`, [], {
    'retry-after': seconds,
    'ratelimit-limit': String(status.max),
    'ratelimit-remaining': '0',
    'ratelimit-reset': seconds,
  })
}

export async function makeLoginLimits(app: FastifyInstance, prisma: PrismaClient, config: Config) {
  await app.register(fastifyRateLimit, { global: false, store: makeRateLimitStore(prisma) })
  const window = config.loginLimitWindowSeconds * 1000
  const perAddress = app.createRateLimit({ max: config.loginLimitPerAddress, timeWindow: window, keyGenerator: (request) => `login:address:${request.ip}` })
  const perAccount = app.createRateLimit({ max: config.loginLimitPerAccount, timeWindow: window, keyGenerator: accountKey })
  const registrations = app.createRateLimit({ max: config.registerLimitPerAddress, timeWindow: 3_600_000, keyGenerator: (request) => `register:address:${request.ip}` })

  return {
    /** Counts the attempt against the address and the account; refuses it when either limit is spent. */
    async beforeLogin(request: FastifyRequest) {
      const address = (await perAddress(request)) as LimitStatus & { isExceeded: boolean }
      if (address.isExceeded) throw tooMany(address, 'login attempts from this address')
      const account = (await perAccount(request)) as LimitStatus & { isExceeded: boolean }
      if (account.isExceeded) throw tooMany(account, 'failed logins for this account')
    },
    /** Gives the account back the attempt counted by beforeLogin: only failures use up its limit. */
    async loginSucceeded(request: FastifyRequest) {
      await releaseOne(prisma, accountKey(request))
    },
    async beforeRegister(request: FastifyRequest) {
      const address = (await registrations(request)) as LimitStatus & { isExceeded: boolean }
      if (address.isExceeded) throw tooMany(address, 'registrations from this address')
    },
  }
}

export type LoginLimits = Awaited<ReturnType<typeof makeLoginLimits>>
