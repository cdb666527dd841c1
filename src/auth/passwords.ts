// Password hashing with bcryptjs. Its async API works in small slices between which the event
// loop runs other requests, so a login does not stall the server (the benchmark measures it).
import { randomBytes } from 'node:crypto'
import bcrypt from 'bcryptjs'

/** bcrypt reads only the first 72 bytes; longer passwords would be silently truncated. */
export const PASSWORD_MAX_BYTES = 72

export const passwordTooLong = (password: string) => Buffer.byteLength(password, 'utf8') > PASSWORD_MAX_BYTES

export const hashPassword = (password: string, cost: number) => bcrypt.hash(password, cost)

export function verifyPassword(password: string, hash: string): Promise<boolean> {
  // Checked anyway, so an over-long password costs the same time and never matches by truncation.
  return bcrypt.compare(password, hash).then((matches) => matches && !passwordTooLong(password))
}

/**
 * A hash to compare against when the email is unknown, so an unknown email and a wrong password
 * take about the same time and accounts cannot be enumerated by timing.
 */
export function makeDecoyHash(cost: number): () => Promise<string> {
  let decoy: Promise<string> | undefined
  return () => (decoy ??= bcrypt.hash(randomBytes(16).toString('hex'), cost))
}
