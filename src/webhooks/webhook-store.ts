// The data layer of webhooks: endpoints, the events written with the changes that cause them, and
// the delivery attempts.
import { afterPosition } from '../cursor.ts'
import { isMissingRecord } from '../db/errors.ts'
import type { TransactionSql } from '../db/transaction.ts'
import type { PrismaClient } from '../generated/prisma/client.ts'
import type { WebhookOutcome } from '../generated/prisma/enums.ts'

export interface EndpointFields {
  url: string
  events: string[]
  description: string
  active: boolean
}

const endpointSelect = {
  id: true,
  url: true,
  events: true,
  description: true,
  active: true,
  createdAt: true,
  updatedAt: true,
} as const

export interface AttemptRecord {
  endpointId: string
  eventId: string
  eventType: string
  attempt: number
  outcome: WebhookOutcome
  responseStatus: number | null
  durationMs: number
  error: string | null
}

/** The active endpoints listening for `type`, read in the transaction `sql` belongs to. */
export async function subscribersIn(sql: TransactionSql, type: string): Promise<string[]> {
  const { rows } = await sql('select id::text as id from webhook_endpoints where active and $1 = any(events)', [type])
  return (rows as { id: string }[]).map((row) => row.id)
}

/**
 * Writes an event in the transaction `sql` belongs to, and notifies `channel` in the same statement
 * (one round trip): the event exists, and the notification goes out, exactly when the change
 * commits. Postgres sends a notification at commit only, so it may be raised before the event's
 * delivery jobs are queued in the same transaction.
 */
export async function insertEventIn(
  sql: TransactionSql,
  event: { id: string; type: string; body: string },
  channel: string,
): Promise<void> {
  // pg_notify returns void, which a raw query cannot read back: cast.
  await sql(
    `with event as (insert into webhook_events (id, type, body) values ($1::uuid, $2, $3))
     select pg_notify($4, '')::text`,
    [event.id, event.type, event.body, channel],
  )
}

export interface AttemptContext {
  endpoint: { url: string; active: boolean; secretSealed: string } | null
  event: { type: string; body: string } | null
  delivered: boolean
}

/** forAttempt's row: the endpoint's and the event's columns are null when either is gone. */
interface AttemptRow {
  url: string | null
  active: boolean | null
  secretSealed: string | null
  type: string | null
  body: string | null
  delivered: boolean
}

export function makeWebhookStore(prisma: PrismaClient) {
  const insertAttempt = (attempt: AttemptRecord) =>
    prisma.$executeRaw`
      insert into webhook_attempts (id, endpoint_id, event_id, event_type, attempt, outcome, response_status, duration_ms, error)
      select gen_random_uuid(), ${attempt.endpointId}::uuid, ${attempt.eventId}::uuid, ${attempt.eventType},
        ${attempt.attempt}, ${attempt.outcome}::"WebhookOutcome", ${attempt.responseStatus}, ${attempt.durationMs}, ${attempt.error}
      where exists (select 1 from webhook_endpoints where id = ${attempt.endpointId}::uuid)`

  return {
    /**
     * Creates the endpoint unless `max` exist already (false then). The table is locked against
     * other creations meanwhile, so two at once cannot both take the last place.
     */
    createBounded: (fields: Omit<EndpointFields, 'active'> & { secretSealed: string }, max: number) =>
      prisma.$transaction(async (tx) => {
        await tx.$executeRawUnsafe('lock table webhook_endpoints in share row exclusive mode')
        if ((await tx.webhookEndpoint.count()) >= max) return null
        return tx.webhookEndpoint.create({ data: fields, select: endpointSelect })
      }),

    /** Oldest first, keyset-paged on (createdAt, id). */
    list: (options: { limit: number; after?: { at: Date; id: string } }) =>
      prisma.webhookEndpoint.findMany({
        where: afterPosition(options.after, 'gt'),
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
        take: options.limit + 1,
        select: endpointSelect,
      }),

    exists: async (id: string) =>
      (await prisma.webhookEndpoint.findUnique({ where: { id }, select: { id: true } })) !== null,

    /** The changed endpoint, or null when there is none. */
    async update(id: string, fields: Partial<EndpointFields>) {
      try {
        return await prisma.webhookEndpoint.update({ where: { id }, data: fields, select: endpointSelect })
      } catch (error) {
        if (isMissingRecord(error)) return null
        throw error
      }
    },

    /** Deletes the endpoint and its attempts; false when there was none. */
    remove: async (id: string) => (await prisma.webhookEndpoint.deleteMany({ where: { id } })).count === 1,

    /** Newest first, keyset-paged on (createdAt, id). */
    attempts: (endpointId: string, options: { limit: number; after?: { at: Date; id: string } }) =>
      prisma.webhookAttempt.findMany({
        where: { endpointId, ...afterPosition(options.after, 'lt') },
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        take: options.limit + 1,
      }),

    /**
     * What an attempt needs, in one round trip: the endpoint (null once it is gone), the event (null
     * once retention removed it), and whether an attempt already delivered the event to the
     * endpoint (a job run again after its worker died).
     */
    async forAttempt(job: { eventId: string; endpointId: string }): Promise<AttemptContext> {
      const [row] = await prisma.$queryRaw<AttemptRow[]>`
        select e.url, e.active, e.secret_sealed as "secretSealed", v.type, v.body,
          exists (select 1 from webhook_attempts a
            where a.event_id = ${job.eventId}::uuid and a.endpoint_id = ${job.endpointId}::uuid
              and a.outcome = 'delivered') as delivered
        from (select 1) as one
          left join webhook_endpoints e on e.id = ${job.endpointId}::uuid
          left join webhook_events v on v.id = ${job.eventId}::uuid`
      const { url, active, secretSealed, type, body, delivered } = row!
      return {
        endpoint: url === null ? null : { url, active: active!, secretSealed: secretSealed! },
        event: type === null ? null : { type, body: body! },
        delivered,
      }
    },

    /** Records an attempt, unless its endpoint was deleted meanwhile. */
    async recordAttempt(attempt: AttemptRecord) {
      try {
        await insertAttempt(attempt)
      } catch (error) {
        // Deleted after the insert's check read it, before its foreign key did: its attempts
        // went with it.
        if ((await prisma.webhookEndpoint.count({ where: { id: attempt.endpointId } })) === 0) return
        throw error
      }
    },

    /** Deletes up to `limit` events that happened before `before`; how many. */
    deleteEventsBefore: (before: Date, limit: number) =>
      prisma.$executeRaw`delete from webhook_events where id in
        (select id from webhook_events where created_at < ${before} order by created_at limit ${limit})`,

    /** Deletes up to `limit` attempts made before `before`; how many. */
    deleteAttemptsBefore: (before: Date, limit: number) =>
      prisma.$executeRaw`delete from webhook_attempts where id in
        (select id from webhook_attempts where created_at < ${before} order by created_at limit ${limit})`,
  }
}

export type WebhookStore = ReturnType<typeof makeWebhookStore>
