// Webhook secrets sign every delivery, so they are kept in a form that can be opened again: sealed
// with AES-256-GCM under a key derived from JWT_SECRET. A copy of the database alone does not
// reveal them; changing JWT_SECRET makes them unusable (deliveries then fail until each endpoint
// is made again), as it does the access tokens issued before (sessions' refresh tokens, kept
// hashed in the database, still work: test/db/backup-restore.test.ts).
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto'

/** Standard Webhooks secrets: `whsec_` and the base64 of the key bytes (32 here; 24 at least). */
export const newWebhookSecret = () => `whsec_${randomBytes(32).toString('base64')}`

export interface SecretBox {
  seal(secret: string): string
  open(sealed: string): string
}

export function makeSecretBox(jwtSecret: string): SecretBox {
  const key = Buffer.from(hkdfSync('sha256', jwtSecret, 'blog-api', 'webhook-secrets', 32))
  return {
    /** `v1.` + base64url of nonce (12 bytes), tag (16 bytes) and the sealed text. */
    seal(secret) {
      const nonce = randomBytes(12)
      const cipher = createCipheriv('aes-256-gcm', key, nonce)
      const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()])
      return `v1.${Buffer.concat([nonce, cipher.getAuthTag(), sealed]).toString('base64url')}`
    },
    open(sealed) {
      const bytes = Buffer.from(sealed.slice(3), 'base64url')
      const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, 12))
      decipher.setAuthTag(bytes.subarray(12, 28))
      return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8')
    },
  }
}
