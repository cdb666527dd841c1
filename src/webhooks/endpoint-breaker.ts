// Holds back deliveries to an endpoint that stopped answering. An attempt that gets no answer
// holds one of the instance's delivery slots for the whole timeout (5 s), and a dead endpoint's
// attempts would in time take every slot: the oldest jobs come first, and each of its events is
// tried 8 times. After SILENT_IN_A_ROW attempts in a row without an answer, the endpoint's attempts
// fail at once, without a connection, for HOLD_MS; then one attempt goes through as a probe, and
// its outcome ends the hold or renews it. Per instance, in memory: each learns from its own attempts.

export const SILENT_IN_A_ROW = 5
export const HOLD_MS = 30_000

export interface EndpointBreaker {
  /** Whether an attempt to the endpoint may be made now; false while it is held back. */
  mayAttempt(endpointId: string): boolean
  /**
   * The outcome of an attempt: answered (with any status), not answered, or null when no
   * connection was made (an address refused), which says nothing of the receiver.
   */
  record(endpointId: string, answered: boolean | null): void
}

interface Silence {
  inARow: number
  heldUntil: number
  probing: boolean
}

export function makeEndpointBreaker(now: () => number = Date.now): EndpointBreaker {
  // Only endpoints whose last attempt got no answer: at most the endpoints that exist.
  const silent = new Map<string, Silence>()
  return {
    mayAttempt(endpointId) {
      const silence = silent.get(endpointId)
      if (silence === undefined || silence.inARow < SILENT_IN_A_ROW) return true
      if (silence.probing || now() < silence.heldUntil) return false
      silence.probing = true
      return true
    },
    record(endpointId, answered) {
      if (answered === null) {
        const silence = silent.get(endpointId)
        if (silence !== undefined) silence.probing = false
        return
      }
      if (answered) {
        silent.delete(endpointId)
        return
      }
      const silence = silent.get(endpointId) ?? { inARow: 0, heldUntil: 0, probing: false }
      silence.inARow++
      silence.probing = false
      if (silence.inARow >= SILENT_IN_A_ROW) silence.heldUntil = now() + HOLD_MS
      silent.set(endpointId, silence)
    },
  }
}
