// How webhook hosts are resolved: every address of a name, as the system resolver gives them.
// Tests inject another (a name that turns private after an endpoint was saved).
import { lookup } from 'node:dns/promises'

/** Every address `host` resolves to; rejects when it resolves to none. */
export type Resolve = (host: string) => Promise<string[]>

/** The system resolver, bounded in time so that a slow DNS server cannot hold a request or a delivery. */
export const systemResolve: Resolve = async (host) => {
  const answers = await Promise.race([
    lookup(host, { all: true, verbatim: true }),
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error('DNS lookup timed out')), 3000).unref()),
  ])
  if (answers.length === 0) throw new Error(`${host} has no address`)
  return answers.map((answer) => answer.address)
}
