// Cache invalidation across instances on PostgreSQL: writers NOTIFY once their write committed,
// every instance LISTENs on a connection of its own. When that connection drops, notifications
// may have been missed, so the instance is told to forget everything ('*') and listens again.
// The embedded database has a single instance: nothing to tell anyone.
import pg from 'pg'
import type { FastifyBaseLogger } from 'fastify'
import type { PrismaClient } from '../generated/prisma/client.ts'

export const CHANNEL = 'post_cache'
/** The message that empties every cache. */
export const ALL = '*'

export interface InvalidationListener {
  close(): Promise<void>
}

/** Sends `message` to every listening instance, this one included. */
export const notifyWith = (prisma: PrismaClient) => async (message: string) => {
  await prisma.$queryRaw`select pg_notify(${CHANNEL}, ${message})`
}

export function listenForInvalidations(
  connectionString: string,
  onMessage: (message: string) => void,
  log: FastifyBaseLogger,
  retryMs = 500,
): InvalidationListener {
  let client: pg.Client | undefined
  let closed = false
  let timer: NodeJS.Timeout | undefined

  function reconnectLater() {
    if (closed || timer) return
    timer = setTimeout(() => {
      timer = undefined
      void connect()
    }, retryMs)
  }

  async function connect() {
    const next = new pg.Client({ connectionString, application_name: 'blog-api-listen' })
    let lost = false
    // 'error' (the server ended the session) and 'end' (the socket closed) may both come: act once.
    const onLost = (error?: Error) => {
      if (lost || closed) return
      lost = true
      if (client === next) client = undefined
      log.warn({ err: error }, 'cache invalidation connection lost; emptying the cache and listening again')
      onMessage(ALL)
      void next.end().catch(() => {})
      reconnectLater()
    }
    next.on('notification', (notification) => onMessage(notification.payload ?? ALL))
    next.on('error', onLost)
    next.on('end', () => onLost())
    try {
      await next.connect()
      await next.query(`listen ${CHANNEL}`)
    } catch (error) {
      log.warn({ err: error }, 'cannot listen for cache invalidations; retrying')
      onLost(error as Error)
      return
    }
    if (closed) return void (await next.end().catch(() => {}))
    client = next
    // Whatever changed while nobody listened is unknown: start from an empty cache.
    onMessage(ALL)
  }

  void connect()
  return {
    async close() {
      closed = true
      clearTimeout(timer)
      await client?.end().catch(() => {})
    },
  }
}
