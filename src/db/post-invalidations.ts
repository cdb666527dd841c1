// Cache invalidation across instances on PostgreSQL: writers NOTIFY once their write committed,
// every instance LISTENs on a connection of its own, which also hears the other channels it is
// given (webhook deliveries queued). When that connection drops, the instance listens again at
// once, and once it listens each channel's handler gets ALL ('*'), since notifications may have
// been missed meanwhile: the caches forget everything. They do not forget at the drop itself:
// while the database is down no write can commit, and the cache is what keeps serving reads.
// The embedded database has a single instance: nothing to tell anyone.
import pg from 'pg'
import type { Logger } from '../log.ts'
import type { PrismaClient } from '../generated/prisma/client.ts'

export const CHANNEL = 'post_cache'
/** The message that empties every cache. */
export const ALL = '*'

export interface InvalidationListener {
  close(): Promise<void>
}

/** Sends `message` to every listening instance, this one included. */
export const notifyWith = (prisma: PrismaClient) => async (message: string) => {
  // $executeRaw, not $queryRaw: pg_notify returns void, which $queryRaw cannot read back, so it
  // threw after every notification had gone out (and the caller warned of a failure there was not).
  await prisma.$executeRaw`select pg_notify(${CHANNEL}, ${message})`
}

/** What to do with a message on each channel listened to. */
export type ChannelHandlers = Record<string, (message: string) => void>

export function listenForNotifications(
  connectionString: string,
  handlers: ChannelHandlers,
  log: Logger,
  retryMs = 500,
): InvalidationListener {
  let client: pg.Client | undefined
  let closed = false
  let timer: NodeJS.Timeout | undefined

  function reconnect(delayMs: number) {
    if (closed || timer) return
    timer = setTimeout(() => {
      timer = undefined
      void connect()
    }, delayMs)
  }

  async function connect() {
    const next = new pg.Client({ connectionString, application_name: 'blog-api-listen' })
    let lost = false
    let listening = false
    // 'error' (the server ended the session) and 'end' (the socket closed) may both come, also
    // after a failed connect: act once. A listener that was up tries again at once; one that
    // could not connect waits, so a database that is down is not hammered.
    const onLost = () => {
      if (lost || closed) return
      lost = true
      if (client === next) client = undefined
      void next.end().catch(() => {})
      reconnect(listening ? 0 : retryMs)
    }
    next.on('notification', (notification) => handlers[notification.channel]?.(notification.payload ?? ALL))
    next.on('error', (error) => {
      if (listening) log.warn({ err: error }, 'cache invalidation connection lost; listening again')
      onLost()
    })
    next.on('end', onLost)
    try {
      await next.connect()
      for (const channel of Object.keys(handlers)) await next.query(`listen ${channel}`)
    } catch (error) {
      log.warn({ err: error }, 'cannot listen for cache invalidations; retrying')
      onLost()
      return
    }
    if (closed) return void (await next.end().catch(() => {}))
    if (lost) return
    listening = true
    client = next
    // Whatever happened while nobody listened is unknown: start from an empty cache.
    for (const handler of Object.values(handlers)) handler(ALL)
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
