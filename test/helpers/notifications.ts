// Cache notifications between instances on PostgreSQL (src/db/post-invalidations.ts), as tests
// wait for them: for a condition they bring about, never for a time.
import { randomUUID } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import type { Test } from 'tap'
import type { ChangeListener } from '../../src/content/posts/post-changes.ts'
import { CHANNEL } from '../../src/db/post-invalidations.ts'
import type { PostSelector } from '../../src/content/posts/post-cache.ts'
import { eventually } from './images.ts'

/**
 * Whether `app` has heard every notification committed before this call, within 30 s. A marker
 * goes out after them, from no instance, naming a post that does not exist (every cache forgets
 * nothing on it); PostgreSQL delivers notifications in the order their transactions committed,
 * so once `app`'s post cache is told of the marker, everything sent before it has arrived.
 */
export async function heardEverythingSentBefore(app: FastifyInstance): Promise<boolean> {
  const marker = randomUUID()
  const cache = app.services.postCache
  const invalidate = cache.invalidate
  let heard = false
  cache.invalidate = (selector: PostSelector) => {
    if ('postId' in selector && selector.postId === marker) heard = true
    invalidate(selector)
  }
  try {
    await app.services.database.prisma.$executeRaw`select pg_notify(${CHANNEL}, ${`marker-${marker}/post:${marker}`})`
    return await eventually(async () => heard, 30_000, 20)
  } finally {
    cache.invalidate = invalidate
  }
}

/**
 * Every selector `cache` is told to forget from now on, by a write of this instance or a message
 * heard (null: everything), until the test ends: how many times a write reached it.
 */
export function recordInvalidations(t: Test, cache: ChangeListener): (PostSelector | null)[] {
  const told: (PostSelector | null)[] = []
  const { invalidate, clear } = cache
  cache.invalidate = (selector: PostSelector) => {
    told.push(selector)
    invalidate(selector)
  }
  cache.clear = () => {
    told.push(null)
    clear()
  }
  t.teardown(() => Object.assign(cache, { invalidate, clear }))
  return told
}

/**
 * What `cache` of `writer` is told of the post `write` creates, until the instance's own message
 * of it is back: an instance ignores its own messages, so exactly once, by the write itself.
 */
export async function toldOfOwnWrite(
  t: Test,
  writer: FastifyInstance,
  cache: ChangeListener,
  write: () => Promise<{ id: string }>,
): Promise<{ id: string; told: (PostSelector | null)[] }> {
  const told = recordInvalidations(t, cache)
  const { id } = await write()
  if (!(await heardEverythingSentBefore(writer))) throw new Error('the writer did not hear its own message')
  return {
    id,
    told: told.filter(
      (selector) => selector === null || ('createdPostId' in selector && selector.createdPostId === id),
    ),
  }
}
