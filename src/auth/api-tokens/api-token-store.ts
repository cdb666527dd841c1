// The data layer of API tokens (api_tokens): the check every request with a token makes, the
// owner's and the admins' lists, making and revoking them, and the clean-up of expired ones.
// Revoking deletes the row: nothing of a revoked token is kept, and its next request finds none.
import { afterPosition, type Position } from '../../cursor.ts'
import type { Prisma, PrismaClient } from '../../generated/prisma/client.ts'
import type { Role } from '../../generated/prisma/enums.ts'

/** A token as the lists show it (never its hash). */
export type ApiTokenRecord = Pick<
  Prisma.ApiTokenGetPayload<object>,
  'id' | 'userId' | 'name' | 'scopes' | 'prefix' | 'createdAt' | 'expiresAt' | 'lastUsedAt'
>

/** What a request's token says now, with its owner's role and email state. */
export interface LiveApiToken {
  id: string
  userId: string
  scopes: string[]
  createdAt: Date
  expiresAt: Date | null
  lastUsedAt: Date | null
  role: Role
  emailVerified: boolean
}

export interface NewApiToken {
  userId: string
  name: string
  scopes: string[]
  tokenHash: string
  prefix: string
  expiresAt: Date | null
}

const RECORD = {
  id: true,
  userId: true,
  name: true,
  scopes: true,
  prefix: true,
  createdAt: true,
  expiresAt: true,
  lastUsedAt: true,
} as const

/** Not expired: what counts against API_TOKENS_MAX_PER_USER. */
const live = () => ({ OR: [{ expiresAt: null }, { expiresAt: { gt: new Date() } }] })

export function makeApiTokenStore(prisma: PrismaClient) {
  return {
    /**
     * The token with this hash and its owner, in one statement (an account deleted between two
     * reads would leave a token without its user), or null. Expiry is the caller's to judge, so
     * that an expired token gets an answer of its own. The hash is cast to the column's type: as
     * `text`, PostgreSQL would compare the column cast to text, and not use its index.
     */
    findByHash: async (tokenHash: string): Promise<LiveApiToken | null> => {
      const [token] = await prisma.$queryRaw<LiveApiToken[]>`
        select t.id, t.user_id as "userId", t.scopes, t.created_at as "createdAt", t.expires_at as "expiresAt",
          t.last_used_at as "lastUsedAt",
          u.role, u.email_verified as "emailVerified"
        from api_tokens t join users u on u.id = t.user_id
        where t.token_hash = ${tokenHash}::char(64)`
      return token ?? null
    },

    /**
     * Marks the token used now, unless it was marked less than `stepSeconds` ago by the
     * database's clock: however many requests and instances ask at once, one write per step.
     */
    markUsed: (id: string, stepSeconds: number) =>
      prisma.$executeRaw`
        update api_tokens set last_used_at = now()
        where id = ${id}::uuid and (last_used_at is null or last_used_at <= now() - ${stepSeconds} * interval '1 second')`,

    /**
     * Inserts the token unless its owner holds `max` live ones already ('limit'), or is gone. The
     * owner's row is locked meanwhile, so two requests at once cannot both take the last place.
     */
    create: (token: NewApiToken, max: number): Promise<ApiTokenRecord | 'limit' | 'gone'> =>
      prisma.$transaction(async (tx) => {
        const [owner] = await tx.$queryRaw<{ id: string }[]>`
          select id from users where id = ${token.userId}::uuid for no key update`
        if (!owner) return 'gone'
        if ((await tx.apiToken.count({ where: { userId: token.userId, ...live() } })) >= max) return 'limit'
        return tx.apiToken.create({ data: token, select: RECORD })
      }),

    /** Tokens newest first, keyset-paged on (createdAt, id): one user's, or everyone's. */
    list: (options: { userId?: string; limit: number; after?: Position }): Promise<ApiTokenRecord[]> =>
      prisma.apiToken.findMany({
        where: {
          ...(options.userId === undefined ? {} : { userId: options.userId }),
          ...afterPosition(options.after, 'lt'),
        },
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        take: options.limit + 1,
        select: RECORD,
      }),

    /** Deletes the token, only if it is `userId`'s when one is given; whether one went. */
    revoke: async (id: string, userId?: string) =>
      (await prisma.apiToken.deleteMany({ where: { id, ...(userId === undefined ? {} : { userId }) } })).count === 1,

    /** Deletes up to `batchSize` tokens expired more than `graceSeconds` ago; how many. */
    deleteExpired: (batchSize: number, graceSeconds: number) =>
      prisma.$executeRaw`
        delete from api_tokens where id in (
          select id from api_tokens where expires_at < now() - ${graceSeconds} * interval '1 second' limit ${batchSize})`,
  }
}

export type ApiTokenStore = ReturnType<typeof makeApiTokenStore>
