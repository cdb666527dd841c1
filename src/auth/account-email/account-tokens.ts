// The one-time tokens mailed in links (email verification, password reset). A request draws a
// random nonce (256 bits) and queues it with the mail; the token is an HMAC of that nonce under a
// key derived from JWT_SECRET, which every instance shares and the database never holds. So the
// database keeps only the token's SHA-256 (account_tokens) and the nonce (in the queued job), and
// neither gives the token; and a retried job makes the very same token, so a mail sent again after
// a worker died mid-send carries the same link (and Message-ID) as the first, never a second one.
import { createHash, createHmac, randomBytes } from 'node:crypto'

export const newNonce = () => randomBytes(32).toString('base64url')

export function makeTokenMinter(jwtSecret: string) {
  const key = createHmac('sha256', jwtSecret).update('blog-api account tokens v1').digest()
  return {
    /** The token mailed for a nonce: 43 URL-safe characters, 256 bits. */
    tokenOf: (nonce: string) => createHmac('sha256', key).update(nonce).digest('base64url'),
  }
}

/** What account_tokens keeps of a token. */
export const hashAccountToken = (token: string) => createHash('sha256').update(token).digest('hex')

/** The link to mail: the operator's template with the token in place of `{token}`. */
export const linkWith = (template: string, token: string) => template.replaceAll('{token}', encodeURIComponent(token))
