// The tokens of a session: an access token that names the session (`sid`), and one-time refresh
// tokens, of which the database keeps only the SHA-256. What sign-in and refresh answer.
import { createHash, randomBytes } from 'node:crypto'
import type { components } from '../../generated/api.ts'
import type { Wire } from '../../wire.ts'
import type { UserRecord } from '../account-store.ts'
import type { AuthServiceOptions } from '../auth-service.ts'
import { toUser } from '../accounts/user-view.ts'

type TokenPair = components['schemas']['TokenPair']

export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex')

export const newRefreshToken = () => randomBytes(32).toString('base64url')

export function makeSessionTokens({ config, signAccessToken }: Pick<AuthServiceOptions, 'config' | 'signAccessToken'>) {
  return {
    /** When a session started now expires. */
    refreshExpiry: () => new Date(Date.now() + config.refreshTokenTtlDays * 86_400_000),

    pair: (user: UserRecord, sessionId: string, refreshToken: string): Wire<TokenPair> => ({
      accessToken: signAccessToken({ sub: user.id, role: user.role, sid: sessionId }),
      refreshToken,
      tokenType: 'Bearer',
      expiresIn: config.accessTokenTtlSeconds,
      user: toUser(user),
    }),
  }
}

export type SessionTokens = ReturnType<typeof makeSessionTokens>
