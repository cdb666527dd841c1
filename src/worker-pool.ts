// Every piscina pool of the service is made here, so that none records timings: piscina keeps a
// native histogram of each task's run and wait times by default, which nothing here reads (the
// service's metrics are its own), and about 2 MiB of native memory goes with it.
import { Piscina } from 'piscina'

export type WorkerPoolOptions = Omit<NonNullable<ConstructorParameters<typeof Piscina>[0]>, 'recordTiming'>

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- as piscina's own defaults: a pool running several named functions
export function makeWorkerPool<Task = any, Result = any>(options: WorkerPoolOptions): Piscina<Task, Result> {
  return new Piscina<Task, Result>({ ...options, recordTiming: false })
}
