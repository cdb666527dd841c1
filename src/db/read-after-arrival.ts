// One read shared by callers, without ever answering a caller from a read older than its call.
// A read started before a caller arrived may predate a write that committed before the caller
// arrived (and whose answer that caller may have seen): such a caller waits for the next read
// instead, which starts once the one in flight ends and is shared by everyone who arrived
// meanwhile. So under load at most two reads are in flight or waiting, whatever the callers, and
// each caller gets a value read entirely after its call — what a read of its own would give.

export function readAfterArrival<T>(read: () => Promise<T>): () => Promise<T> {
  /** Started: shared by nobody who arrives from now on. */
  let inFlight: Promise<unknown> | null = null
  /** To start when the one in flight ends: shared by everyone arriving until then. */
  let next: Promise<T> | null = null

  const start = (): Promise<T> => {
    const started = read()
    const settled = started.then(
      () => {},
      () => {},
    )
    inFlight = settled
    void settled.then(() => {
      if (inFlight === settled) inFlight = null
    })
    return started
  }

  return () => {
    if (next !== null) return next
    if (inFlight === null) return start()
    const waiting = inFlight.then(() => {
      next = null
      return start()
    })
    next = waiting
    return waiting
  }
}
