// What this instance knows of the object store, kept up to date by every real call to it (the S3
// driver reports each outcome) and by a HeadBucket every STORAGE_CHECK_INTERVAL_MS (5 s) in the
// background: /health and the metrics read it at once, without calling the store, and uploads
// are refused at once (503) while the store is known to be failing, instead of each holding a
// database connection until STORAGE_TIMEOUT_MS passes.

/** `unknown`: no call has been answered or failed yet (just started). */
export type StorageStatus = 'up' | 'down' | 'unknown'

export interface StorageHealth {
  /** The outcome of the last call to the store (a check's, or a request's). */
  readonly status: StorageStatus
  /** When that call ended; null before the first. */
  readonly checkedAt: Date | null
  /** Whether uploads should be refused without trying: the last call failed, recently enough. */
  failing(): boolean
  /** Called by the driver with the outcome of each call to the store. */
  record(ok: boolean): void
  /** Starts the background check (`ping`: a HeadBucket bounded by STORAGE_TIMEOUT_MS); returns what stops it. */
  watch(ping: () => Promise<void>): () => void
}

/**
 * `intervalMs`: STORAGE_CHECK_INTERVAL_MS, between the end of one background check and the next
 * (0: none; the state then follows the requests' calls only). `timeoutMs`: STORAGE_TIMEOUT_MS.
 */
export function makeStorageHealth(intervalMs: number, timeoutMs: number, now: () => number = Date.now): StorageHealth {
  let status: StorageStatus = 'unknown'
  let at: number | null = null
  return {
    get status() {
      return status
    },
    get checkedAt() {
      return at === null ? null : new Date(at)
    },
    // A failure is trusted for one check interval and one call's time after it: the background
    // check renews it while the store stays down, and without one uploads are tried again after that.
    failing: () => status === 'down' && at !== null && now() - at < intervalMs + timeoutMs,
    record(ok) {
      status = ok ? 'up' : 'down'
      at = now()
    },
    watch(ping) {
      if (intervalMs === 0) return () => {}
      let stopped = false
      let timer: NodeJS.Timeout | undefined
      const check = async () => {
        // The driver records the outcome; a failure here is only the store's state.
        await ping().catch(() => {})
        if (!stopped) timer = setTimeout(check, intervalMs).unref()
      }
      void check()
      return () => {
        stopped = true
        clearTimeout(timer)
      }
    },
  }
}
