// One full, last-resort garbage collection once the app is built and before it listens. Start-up
// allocates far more than it keeps (the spec parsed and compiled into every route's validators and
// serializers, Prisma's client, the migrations), and V8 would otherwise leave that garbage resident
// for as long as the process stays idle: idle RSS on PostgreSQL 232 → 189–195 MiB (docs/operations.md,
// "Memory"), for a few hundred milliseconds once.
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

/** Collects everything unreachable now; `gc` is exposed only for the call and hidden again after. */
export function collectStartUpGarbage(): void {
  setFlagsFromString('--expose-gc')
  try {
    // A new context sees the flag: the global `gc` is installed when a context is created.
    const gc = runInNewContext('gc') as (options: object) => void
    // The last-resort flavour (V8's CollectAllAvailableGarbage) collects in rounds until nothing
    // more is freed and gives the emptied pages back to the system; a plain gc() frees the objects
    // but keeps the heap's pages, and the process's resident memory with them.
    gc({ type: 'major', execution: 'sync', flavor: 'last-resort' })
  } finally {
    setFlagsFromString('--no-expose-gc')
  }
}
