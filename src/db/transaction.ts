// What stores need to work inside a transaction. Services never see these: a store hands them
// its statements already bound to the transaction (see PostStore.transaction).
import type { Prisma } from '../generated/prisma/client.ts'

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
