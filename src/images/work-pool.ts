// At most `concurrency` image jobs at once; up to `queueMax` more wait their turn, in order, and
// any beyond that are refused at once (the caller answers 503 with Retry-After). Each decode holds
// its pixels in memory and keeps a core busy, so without a bound a burst of uploads takes all the
// memory and CPU the process has, and every other request waits behind it. One owner (a user)
// holds at most `perOwner` of those places, running or waiting: past that their next job is
// refused at once (the caller answers 429), so that one account cannot fill the queue for all.

export class PoolBusyError extends Error {
  constructor() {
    super('image work pool full')
    this.name = 'PoolBusyError'
  }
}

/** The owner already holds all the places one owner may hold. */
export class OwnerBusyError extends Error {
  constructor() {
    super("the owner's places in the image work pool are taken")
    this.name = 'OwnerBusyError'
  }
}

export interface WorkPoolStats {
  concurrency: number
  queueMax: number
  perOwner: number
  active: number
  queued: number
  /** The most jobs ever running at once: never above `concurrency`. */
  peakActive: number
  completed: number
  /** Jobs refused because the queue was full. */
  refused: number
  /** Jobs refused because their owner held `perOwner` places already. */
  refusedOwner: number
}

export function makeWorkPool(options: { concurrency: number; queueMax: number; perOwner?: number }) {
  const { concurrency, queueMax, perOwner = Number.POSITIVE_INFINITY } = options
  const waiting: (() => void)[] = []
  /** Places (running or waiting) held per owner; an owner holding none is not kept. */
  const held = new Map<string, number>()
  let active = 0
  let peakActive = 0
  let completed = 0
  let refused = 0
  let refusedOwner = 0

  const start = () => {
    active++
    peakActive = Math.max(peakActive, active)
  }
  const release = (owner: string | undefined) => {
    if (owner === undefined) return
    const count = held.get(owner)! - 1
    if (count === 0) held.delete(owner)
    else held.set(owner, count)
  }

  async function run<T>(job: () => Promise<T>, owner?: string): Promise<T> {
    if (owner !== undefined && (held.get(owner) ?? 0) >= perOwner) {
      refusedOwner++
      throw new OwnerBusyError()
    }
    const queued = active >= concurrency
    if (queued && waiting.length >= queueMax) {
      refused++
      throw new PoolBusyError()
    }
    if (owner !== undefined) held.set(owner, (held.get(owner) ?? 0) + 1)
    if (queued) await new Promise<void>((resolve) => waiting.push(resolve))
    else start()
    try {
      return await job()
    } finally {
      release(owner)
      completed++
      const next = waiting.shift()
      // The slot passes straight to the next in line: `active` stays as it is.
      if (next) next()
      else active--
    }
  }

  return {
    run,
    stats: (): WorkPoolStats => ({
      concurrency,
      queueMax,
      perOwner,
      active,
      queued: waiting.length,
      peakActive,
      completed,
      refused,
      refusedOwner,
    }),
  }
}

export type WorkPool = ReturnType<typeof makeWorkPool>
