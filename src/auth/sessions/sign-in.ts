// Registration and login: each checks who is signing in and starts a session, answering its first
// tokens. What the session records of the client is bounded first (session-details.ts).
import type { components } from '../../generated/api.ts'
import { ApiError, refuseBlank } from '../../errors/api-error.ts'
import { LOGIN_CHALLENGE } from '../../errors/challenges.ts'
import { isUniqueViolation } from '../../db/errors.ts'
import type { AccountStore } from '../account-store.ts'
import type { AuthServiceOptions } from '../auth-service.ts'
import { normaliseEmail } from '../email.ts'
import { passwordTooLong } from '../passwords/passwords.ts'
import { emailTaken, passwordTooLongError } from '../refusals.ts'
import { sessionDetails, type SignInClient } from './session-details.ts'
import { hashToken, newRefreshToken, type SessionTokens } from './session-tokens.ts'

type TokenPair = components['schemas']['TokenPair']

export interface SignInOptions extends Pick<AuthServiceOptions, 'passwords' | 'onRegistered'> {
  store: Pick<AccountStore, 'createUserWithSession' | 'findUserByEmail' | 'startSessionIfPassword'>
  tokens: SessionTokens
}

const invalidCredentials = () =>
  new ApiError(401, 'INVALID_CREDENTIALS', 'The email or the password is wrong.', [], LOGIN_CHALLENGE)

export function makeSignIn({ store, passwords, tokens, onRegistered }: SignInOptions) {
  /** A new session for `client`: its first refresh token, and what the store records of it. */
  const newSession = (client: SignInClient) => {
    const refreshToken = newRefreshToken()
    const session = {
      expiresAt: tokens.refreshExpiry(),
      tokenHash: hashToken(refreshToken),
      details: sessionDetails(client),
    }
    return { refreshToken, session }
  }

  return {
    async register(input: { email: string; password: string; name: string }, client: SignInClient): Promise<TokenPair> {
      refuseBlank(input.name, '/body/name')
      if (passwordTooLong(input.password)) throw passwordTooLongError()
      const email = normaliseEmail(input.email)
      const passwordHash = await passwords.hash(input.password)
      const { refreshToken, session } = newSession(client)
      try {
        const { user, sessionId } = await store.createUserWithSession(
          { email, name: input.name.trim(), passwordHash },
          session,
          onRegistered,
        )
        return tokens.pair(user, sessionId, refreshToken)
      } catch (error) {
        if (isUniqueViolation(error)) throw emailTaken()
        throw error
      }
    },

    /** Null when the credentials are wrong, so the caller can count the failure before refusing. */
    async login(input: { email: string; password: string }, client: SignInClient): Promise<TokenPair | null> {
      const user = await store.findUserByEmail(normaliseEmail(input.email))
      // Unknown email: compare against a decoy so both failures cost the same bcrypt time.
      const matches = await passwords.verify(input.password, user?.passwordHash ?? (await passwords.decoyHash()))
      if (!user || !matches) return null
      // Only while the password checked is still the account's: see startSessionIfPassword.
      const { refreshToken, session } = newSession(client)
      const started = await store.startSessionIfPassword(user.id, user.passwordHash, session)
      return started && tokens.pair(started.user, started.sessionId, refreshToken)
    },

    invalidCredentials,
  }
}
