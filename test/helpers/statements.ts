// Counts the statements node-postgres sends on behalf of one piece of work (its async context):
// what a request or a job costs the database in round trips, without timing it. Work running
// beside it (pg-boss's polling, the LISTEN connection, other requests) is not counted. PostgreSQL
// only: the embedded database does not go through node-postgres.
import { AsyncLocalStorage } from 'node:async_hooks'
import pg from 'pg'

/** Runs `fn` and counts the statements node-postgres sends on its behalf. */
export async function statementsOf(fn: () => Promise<unknown>): Promise<{ count: number; texts: string[] }> {
  const request = new AsyncLocalStorage<string[]>()
  const texts: string[] = []
  const query = pg.Client.prototype.query
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const sent = request.getStore()
    if (sent) {
      const [first] = args
      sent.push(typeof first === 'string' ? first : String((first as { text?: string })?.text))
    }
    return (query as (...args: unknown[]) => unknown).apply(this, args)
  } as typeof query
  try {
    await request.run(texts, fn)
  } finally {
    pg.Client.prototype.query = query
  }
  return { count: texts.length, texts }
}
