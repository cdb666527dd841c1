// Orders two requests deterministically: a request that checks a given password stops right after
// the check (the hash it verified is read, the answer known) until the test lets it go, so the
// test can run something else exactly in that gap. Given to the app as AppOptions.passwords.
import type { PasswordHasher } from '../../src/auth/passwords/passwords.ts'

export interface Pause {
  /** Resolves once a request has checked the password and is held. */
  reached: Promise<void>
  /** Lets it go on. */
  release(): void
}

export function makePausingHasher() {
  const pauses = new Map<string, { reached: () => void; released: Promise<void> }>()
  return {
    wrap: (real: PasswordHasher): PasswordHasher => ({
      ...real,
      async verify(password, digest) {
        const matches = await real.verify(password, digest)
        const pause = pauses.get(password)
        if (pause) {
          // One request per pause: the checks that follow (the test's own) run straight through.
          pauses.delete(password)
          pause.reached()
          await pause.released
        }
        return matches
      },
    }),
    /** Holds the next request that checks `password`, after its check. */
    pauseAfterChecking(password: string): Pause {
      let reached!: () => void
      let release!: () => void
      const reachedPromise = new Promise<void>((resolve) => (reached = resolve))
      const released = new Promise<void>((resolve) => (release = resolve))
      pauses.set(password, { reached, released })
      return { reached: reachedPromise, release }
    },
  }
}
