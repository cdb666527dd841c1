// Name-based UUIDs (version 5, RFC 9562 §5.5): the same name always gives the same UUID, on every
// instance and after every restart, with nothing stored. The feed's id is made this way from its URL.
import { createHash } from 'node:crypto'

/** RFC 9562's namespace for names that are URLs. */
const URL_NAMESPACE = Buffer.from('6ba7b8119dad11d180b400c04fd430c8', 'hex')

export function uuidV5OfUrl(url: string): string {
  const hash = createHash('sha1').update(URL_NAMESPACE).update(url, 'utf8').digest()
  hash[6] = (hash[6]! & 0x0f) | 0x50
  hash[8] = (hash[8]! & 0x3f) | 0x80
  const hex = hash.subarray(0, 16).toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}
