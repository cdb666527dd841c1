// Deleting old rows without bound in one statement would hold locks and the log for as long as it
// takes: clean-up jobs delete in batches instead, and a run stops after a bounded number of them.

export interface BatchLimits {
  /** Rows per delete statement. */
  batchSize: number
  /** Statements per kind of row in one run. */
  maxBatches: number
}

/**
 * Runs `batch` (which deletes up to `batchSize` rows and says how many) until it deletes less than
 * a full batch or the run's batches are spent; `more` says whether rows may be left for another run.
 */
export async function inBatches(limits: BatchLimits, batch: () => Promise<number>) {
  let deleted = 0
  for (let round = 0; round < limits.maxBatches; round++) {
    const count = await batch()
    deleted += count
    if (count < limits.batchSize) return { deleted, more: false }
  }
  return { deleted, more: true }
}
