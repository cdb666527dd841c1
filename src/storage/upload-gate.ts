// How many uploads of this instance may be in their storage stage at once. An upload PUTs its
// objects inside its database transaction (the row is seen only once its object exists, and the
// sweep deletes objects only while their rows are locked: image-store.ts), so each upload talking
// to the store holds a pooled database connection for up to STORAGE_TIMEOUT_MS. Left unbounded, a
// store that hangs lets DATABASE_POOL_MAX uploads take every connection and stall every request.
// The gate lets STORAGE_UPLOADS_MAX in at once (below the pool); the others wait for a turn
// without a connection, at most STORAGE_TIMEOUT_MS, and are refused 503 with Retry-After past
// that, or at once while the store is known to be failing (storage-health.ts).
import { storageUnavailable } from './driver.ts'
import type { StorageHealth } from './storage-health.ts'

export interface UploadGateStats {
  /** Uploads in their storage stage now (each holding a database connection). */
  active: number
  /** Uploads waiting for a turn (holding no connection). */
  waiting: number
  /** Uploads refused since start: the store failing, or no turn within STORAGE_TIMEOUT_MS. */
  refused: number
}

export interface UploadGate {
  /** Runs `work` (the transaction that stores an upload's images) once a turn is free; 503 otherwise. */
  run<T>(work: () => Promise<T>): Promise<T>
  stats(): UploadGateStats
}

/** No object store: uploads write only to the database, nothing to bound. */
export const openGate: UploadGate = {
  run: (work) => work(),
  stats: () => ({ active: 0, waiting: 0, refused: 0 }),
}

export function makeUploadGate(max: number, waitMs: number, health: StorageHealth): UploadGate {
  let active = 0
  let refused = 0
  const waiting: { admit: () => void; refuse: () => void }[] = []

  const refusal = () => {
    refused++
    return storageUnavailable()
  }
  /** Hands a freed turn to the next waiter, or refuses every waiter while the store is failing. */
  function release() {
    active--
    if (health.failing()) {
      for (const waiter of waiting.splice(0)) waiter.refuse()
      return
    }
    waiting.shift()?.admit()
  }
  function turn(): Promise<void> {
    if (active < max) {
      active++
      return Promise.resolve()
    }
    return new Promise<void>((resolve, reject) => {
      const waiter = {
        admit: () => {
          clearTimeout(timer)
          active++
          resolve()
        },
        refuse: () => {
          clearTimeout(timer)
          reject(refusal())
        },
      }
      const timer = setTimeout(() => {
        waiting.splice(waiting.indexOf(waiter), 1)
        reject(refusal())
      }, waitMs)
      waiting.push(waiter)
    })
  }

  return {
    async run(work) {
      if (health.failing()) throw refusal()
      await turn()
      try {
        return await work()
      } finally {
        release()
      }
    },
    stats: () => ({ active, waiting: waiting.length, refused }),
  }
}
