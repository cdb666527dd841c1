// Tag `feeds`.
import { lastModifiedOf, notModified } from '../http/headers/conditional.ts'
import { httpDate } from '../http/headers/http-date.ts'
import type { OperationHandler } from '../http/operations.ts'

/** Caches may keep the feed, but must ask again each time: a write shows in the next read. */
const REVALIDATE = 'no-cache'

/** From the feed cache: a hit, a 304 included, costs one one-row read (the lists' generation). */
export const getFeed: OperationHandler<'getFeed'> = async (request, reply) => {
  const feed = await request.server.services.feeds.read(request.query.category)
  reply.headers({
    etag: feed.etag,
    'last-modified': httpDate(lastModifiedOf(feed.changedAt, feed.now)),
    'cache-control': REVALIDATE,
  })
  if (notModified(request.headers, feed.etag, feed.changedAt, feed.now)) {
    reply.code(304)
    return undefined
  }
  // Atom, not an envelope: sent here, so the handler returns nothing.
  reply.type('application/atom+xml; charset=utf-8').send(feed.bytes)
  return undefined
}
