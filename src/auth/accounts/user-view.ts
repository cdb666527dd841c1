// A user as the API shows them: in the answers of sign-in, /me and the user administration.
import type { components } from '../../generated/api.ts'
import type { Wire } from '../../wire.ts'
import type { UserRecord } from '../account-store.ts'

export type User = components['schemas']['User']

export const toUser = (user: UserRecord): Wire<User> => ({
  id: user.id,
  email: user.email,
  name: user.name,
  role: user.role,
  emailVerified: user.emailVerified,
  createdAt: user.createdAt.toISOString(),
  updatedAt: user.updatedAt.toISOString(),
})
