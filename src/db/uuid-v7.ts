// UUIDv7 (RFC 9562): 48 bits of Unix milliseconds, then random bits. The ids Prisma's `uuid(7)`
// default gives, for rows a store inserts with SQL of its own: new rows land at the end of the
// primary key's index, as the rows Prisma inserts do.
import { randomBytes } from 'node:crypto'

export function uuidV7(now: number = Date.now()): string {
  const bytes = randomBytes(16)
  bytes.writeUIntBE(now, 0, 6)
  bytes[6] = (bytes[6]! & 0x0f) | 0x70 // version 7
  bytes[8] = (bytes[8]! & 0x3f) | 0x80 // variant 10
  const hex = bytes.toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}
