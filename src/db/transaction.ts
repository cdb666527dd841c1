// What stores need to work inside a transaction. Services never see these: a store hands them
// its statements already bound to the transaction (see PostStore.transaction).
import type { Prisma, PrismaClient } from '../generated/prisma/client.ts'

/** Prisma's client inside `$transaction`: stores run a write's statements on it. */
export type Tx = Prisma.TransactionClient

/**
 * Runs one SQL statement (parameters as $1, $2, …) on a given connection: pg-boss's `db` option
 * takes it as `executeSql`. Bound to a transaction, it lets pg-boss enqueue or cancel a job that
 * commits or rolls back with our write.
 */
export type TransactionSql = (text: string, values?: unknown[]) => Promise<{ rows: unknown[] }>

/** SQL that runs inside the transaction `tx`. */
export const sqlIn =
  (tx: Tx): TransactionSql =>
  async (text, values = []) => ({ rows: await tx.$queryRawUnsafe<unknown[]>(text, ...values) })

/**
 * Runs reads in one snapshot (REPEATABLE READ). Prisma loads each relation of an `include` in a
 * query of its own, and outside a transaction each query sees the database as it is at that moment:
 * a write committed between them would show half done. PGlite's adapter sets the level outside the
 * transaction, where it does nothing, but PGlite needs none: it runs one transaction at a time and
 * its plain queries wait for it.
 */
export const inSnapshot = <T>(prisma: PrismaClient, read: (tx: Tx) => Promise<T>) =>
  prisma.$transaction(read, { isolationLevel: 'RepeatableRead' })
