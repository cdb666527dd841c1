// What writers call once a write that changes what GET /posts/{id} or a list returns has committed:
// the instance forgets the affected posts and pages at once (so its next read shows the write), the
// lists' generation moves on (src/db/list-generation.ts: every instance's next list read shows the
// write), and on PostgreSQL every other instance is told through NOTIFY
// (src/db/post-invalidations.ts), to drop what it holds. A notification lost with a crashing
// writer is bounded by the cache's TTL.
import { randomUUID } from 'node:crypto'
import type { Logger } from '../../log.ts'
import type { ListGeneration } from '../../db/list-generation.ts'
import { ALL as EVERYTHING, CHANNEL } from '../../db/post-invalidations.ts'
import type { PostSelector } from './post-cache.ts'

/** A cache that writes invalidate: the post cache and the list cache. */
export interface ChangeListener {
  invalidate(selector: PostSelector): void
  clear(): void
}

/**
 * Sends one message to every instance (NOTIFY on CHANNEL, post-invalidations.ts); null on the
 * embedded database, which has only one.
 */
export type Broadcast = ((message: string) => Promise<void>) | null

export function encodeSelector(selector: PostSelector): string {
  // An instance that does not know a kind forgets everything (decodeSelector): safe in a mixed fleet.
  if ('postId' in selector) return `${selector.listsChanged ? 'post-lists' : 'post'}:${selector.postId}`
  if ('createdPostId' in selector) return `created:${selector.createdPostId}`
  if ('authorId' in selector) return `author:${selector.authorId}`
  return `category:${selector.categoryId}`
}

/** The selector a message names; null for "everything" and for anything unreadable (safest). */
export function decodeSelector(message: string): PostSelector | null {
  const [kind, id] = message.split(':', 2)
  if (!id) return null
  if (kind === 'post') return { postId: id }
  if (kind === 'post-lists') return { postId: id, listsChanged: true }
  if (kind === 'created') return { createdPostId: id }
  if (kind === 'author') return { authorId: id }
  if (kind === 'category') return { categoryId: id }
  return null
}

/** Applies a message received from another instance. */
function apply(caches: ChangeListener[], message: string) {
  const selector = message === EVERYTHING ? null : decodeSelector(message)
  for (const cache of caches) {
    if (selector === null) cache.clear()
    else cache.invalidate(selector)
  }
}

export function makePostChanges(
  caches: ChangeListener[],
  broadcast: Broadcast,
  listGeneration: Pick<ListGeneration, 'advance'>,
  log: Logger,
) {
  // Messages carry their sender, so an instance skips its own: it forgot what they name when it
  // sent them, and hearing them again later would empty its list cache a second time, for nothing.
  // An instance that does not know this form reads it as unreadable and forgets everything (safe).
  const sender = randomUUID()
  /**
   * Moves the lists' generation on and tells the other instances, in one statement (the
   * notification goes out with the generation); never throws. Should that statement fail, the
   * generation did not move, and the notification is sent on its own, as it would have been.
   */
  async function publish(selector: PostSelector | null) {
    const message = `${sender}/${selector === null ? EVERYTHING : encodeSelector(selector)}`
    try {
      await listGeneration.advance(broadcast === null ? undefined : { channel: CHANNEL, message })
      return
    } catch (error) {
      log.warn(
        { err: error, selector },
        'could not move the lists’ generation on; other instances’ lists catch up with the notification',
      )
    }
    if (broadcast === null) return
    try {
      await broadcast(message)
    } catch (error) {
      log.warn(
        { err: error, selector },
        'could not tell the other instances about a post change; their caches catch up within the TTL',
      )
    }
  }

  return {
    /** Call after the write committed. Never throws: the write stands whatever happens here. */
    async changed(selector: PostSelector): Promise<void> {
      for (const cache of caches) cache.invalidate(selector)
      await publish(selector)
    },

    /**
     * After a write that touched more posts than are worth naming one by one (an account deleted
     * with comments on many posts): every instance forgets everything. Never throws.
     */
    async changedEverything(): Promise<void> {
      for (const cache of caches) cache.clear()
      await publish(null)
    },

    /** Applies a message heard on the channel (src/db/post-invalidations.ts), unless this instance sent it. */
    received(message: string) {
      const slash = message.indexOf('/')
      // No sender: an instance of the release before list caching, whose `post:` messages do not
      // say whether lists changed. They may have (a post published there): read as if they did.
      if (slash === -1) return apply(caches, message.startsWith('post:') ? `post-lists:${message.slice(5)}` : message)
      if (message.slice(0, slash) !== sender) apply(caches, message.slice(slash + 1))
    },
  }
}

export type PostChanges = ReturnType<typeof makePostChanges>
