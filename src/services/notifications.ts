// What an instance hears of the other instances' writes: on PostgreSQL every instance's caches hear
// of every write (NOTIFY by the writer, LISTEN by all), and the webhook delivery worker hears that
// deliveries were queued, so it looks at once instead of at its next poll.
import type { Config } from '../config.ts'
import type { PostChanges } from '../content/posts/post-changes.ts'
import type { Database } from '../db/database.ts'
import { CHANNEL as POST_CACHE_CHANNEL, listenForNotifications } from '../db/post-invalidations.ts'
import type { Logger } from '../log.ts'
import { DELIVERIES_QUEUED_CHANNEL, type DeliveriesQueued } from '../webhooks/webhook-events.ts'

export interface NotificationsOptions {
  config: Config
  database: Database
  changes: PostChanges
  deliveriesQueued: DeliveriesQueued
  log: Logger
}

/** Starts listening; the listener returned (null on the embedded database) is closed with the services. */
export function listenForWrites({ config, database, changes, deliveriesQueued, log }: NotificationsOptions) {
  const listener =
    config.databaseUrl === null
      ? null
      : listenForNotifications(
          config.databaseUrl,
          {
            [POST_CACHE_CHANNEL]: (message) => changes.received(message),
            [DELIVERIES_QUEUED_CHANNEL]: () => deliveriesQueued.queued(),
          },
          log,
        )
  // The embedded database hears its own notifications.
  database
    .listen?.(DELIVERIES_QUEUED_CHANNEL, () => deliveriesQueued.queued())
    .catch((error: unknown) =>
      log.warn({ err: error }, 'not listening for queued webhook deliveries: they go at the next poll'),
    )
  return listener
}
