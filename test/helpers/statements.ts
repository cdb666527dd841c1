// Counts the statements node-postgres sends on behalf of one piece of work (its async context):
// what a request or a job costs the database in round trips, without timing it. Work running
// beside it (pg-boss's polling, the LISTEN connection, other requests) is not counted. PostgreSQL
// only: the embedded database does not go through node-postgres.
import { AsyncLocalStorage } from 'node:async_hooks'
import pg from 'pg'

/** Runs `fn` with every statement node-postgres sends, by any client of this process, given to `sent`. */
async function whileSending(fn: () => Promise<unknown>, sent: (text: string) => void): Promise<void> {
  const query = pg.Client.prototype.query
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const [first] = args
    sent(typeof first === 'string' ? first : String((first as { text?: string })?.text))
    return (query as (...args: unknown[]) => unknown).apply(this, args)
  } as typeof query
  try {
    await fn()
  } finally {
    pg.Client.prototype.query = query
  }
}

/** Runs `fn` and counts the statements node-postgres sends on its behalf. */
export async function statementsOf(fn: () => Promise<unknown>): Promise<{ count: number; texts: string[] }> {
  const request = new AsyncLocalStorage<string[]>()
  const texts: string[] = []
  await whileSending(
    () => request.run(texts, fn),
    (text) => request.getStore()?.push(text),
  )
  return { count: texts.length, texts }
}

/**
 * Every statement node-postgres sends while `fn` runs, whoever sends it: a statement that waited
 * for a pooled connection runs on in the async context of the work that gave the connection back,
 * which statementsOf then misses. Only for work with nothing else of this process beside it.
 */
export async function statementsSentDuring(fn: () => Promise<unknown>): Promise<string[]> {
  const texts: string[] = []
  await whileSending(fn, (text) => texts.push(text))
  return texts
}
