// Standard Webhooks signatures (standardwebhooks.com): HMAC-SHA256 of `id.timestamp.body` keyed
// with the bytes whose base64 follows `whsec_`, sent as `v1,` and the base64 of the digest.
import { createHmac } from 'node:crypto'

export function signWebhook(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64')
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`
}
