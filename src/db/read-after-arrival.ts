// One read shared by callers, without ever answering a caller from a read older than its call.
// A read started before a caller arrived may predate a write that committed before the caller
// arrived (and whose answer that caller may have seen). So the callers of one turn of the event
// loop share one read, started once the turn is over (setImmediate), after the last of them
// arrived; a caller of a later turn gets the next turn's read. Reads of different turns overlap:
// one that stalls (a connection stuck until the pool's timeout) or fails holds up or fails only
// the callers of its own turn, as a read of their own would have. Under load, the requests parsed
// in one turn are many, and so the reads are fewer than the callers.

export function readAfterArrival<T>(read: () => Promise<T>): () => Promise<T> {
  /** This turn's read, not started yet: shared by every caller until it starts. */
  let waiting: Promise<T> | null = null
  return () =>
    (waiting ??= new Promise<T>((resolve, reject) =>
      setImmediate(() => {
        waiting = null
        read().then(resolve, reject)
      }),
    ))
}
