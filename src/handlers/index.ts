// The handler map: one export per operationId, one file per spec tag. `satisfies HandlerMap`
// makes a missing, misnamed or mistyped handler a compile error.
import type { HandlerMap } from '../http/operations.ts'
import * as auth from './auth.ts'
import * as categories from './categories.ts'
import * as comments from './comments.ts'
import * as feeds from './feeds.ts'
import * as images from './images.ts'
import * as media from './media.ts'
import * as posts from './posts.ts'
import * as revisions from './revisions.ts'
import * as system from './system.ts'
import * as tokens from './tokens.ts'
import * as users from './users.ts'
import * as webhooks from './webhooks.ts'

export const handlers = {
  ...system,
  ...auth,
  ...users,
  ...tokens,
  ...posts,
  ...revisions,
  ...images,
  ...media,
  ...comments,
  ...categories,
  ...feeds,
  ...webhooks,
} satisfies HandlerMap
