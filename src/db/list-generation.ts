// The generation of public post lists, kept in the database and so shared by every instance.
// Writers move it on once a write that changes what a list shows has committed, before they
// answer; a cached page is served only while the generation it was read at is still the current
// one. NOTIFY (post-invalidations.ts) tells instances to drop pages, but it arrives when it
// arrives: this check is what makes the next list read after a write's answer show the write on
// every instance, as lists read from the database every time always did. It costs one indexed
// one-row read, instead of the page's query, shared by the list requests that arrived while the
// previous one was in flight (read-after-arrival.ts): each still sees every write answered before it came.
import type { PrismaClient } from '../generated/prisma/client.ts'
import { readAfterArrival } from './read-after-arrival.ts'

/** The generation, when it last moved on, and the database's clock as the generation was read. */
export interface GenerationStamp {
  value: bigint
  changedAt: Date
  now: Date
}

export interface ListGeneration {
  current(): Promise<bigint>
  /** current(), with the times the feed dates itself by (src/content/feed/feed.ts), in the same one-row read. */
  stamp(): Promise<GenerationStamp>
  /**
   * Moves the generation on; with `notify`, sends that notification in the same statement (one
   * round trip, not two): PostgreSQL delivers it when the statement commits, with the generation.
   */
  advance(notify?: { channel: string; message: string }): Promise<void>
}

export function makeListGeneration(prisma: PrismaClient): ListGeneration {
  return {
    current: readAfterArrival(async () => {
      const [row] = await prisma.$queryRaw<{ value: bigint }[]>`select value from list_generations where id = 1`
      return row?.value ?? 0n
    }),
    stamp: readAfterArrival(async () => {
      // Both times on the database's clock, which every instance shares: no instance's own clock
      // takes part in dating a change. Before the first change ever, the row does not exist.
      const [row] = await prisma.$queryRaw<{ value: bigint | null; changedAt: Date | null; now: Date }[]>`
        select g.value, g.changed_at as "changedAt", now() as now
        from (select 1) as one left join list_generations g on g.id = 1`
      return { value: row!.value ?? 0n, changedAt: row!.changedAt ?? new Date(0), now: row!.now }
    }),
    async advance(notify) {
      // Dated as late as the statement can: clock_timestamp(), read once the row is locked (now()
      // is the statement's start, before any wait for the lock), so changes are dated in the order
      // they take the row. What remains, the moment between this and the commit, the feed allows
      // for (src/http/headers/conditional.ts). greatest(): never back in time, should the clock be set back.
      if (notify === undefined) {
        await prisma.$executeRaw`
          insert into list_generations (id, value, changed_at) values (1, 1, clock_timestamp())
          on conflict (id) do update set value = list_generations.value + 1,
            changed_at = greatest(clock_timestamp(), list_generations.changed_at)`
        return
      }
      // $executeRaw: pg_notify returns void, which $queryRaw cannot read back (post-invalidations.ts).
      await prisma.$executeRaw`
        with advanced as (
          insert into list_generations (id, value, changed_at) values (1, 1, clock_timestamp())
          on conflict (id) do update set value = list_generations.value + 1,
            changed_at = greatest(clock_timestamp(), list_generations.changed_at)
          returning 1
        )
        select pg_notify(${notify.channel}, ${notify.message}) from advanced`
    },
  }
}
