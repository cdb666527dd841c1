// Slugs in tests: reading posts by them over HTTP, and titles no earlier run on the shared
// PostgreSQL has used (slugs are unique among all posts, so a title reused would be numbered).
import { createHash, randomUUID } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import type { Account } from './accounts.ts'

/** 8 hex digits no other test has. */
export const uniqueTag = () => randomUUID().slice(0, 8)

/** `tag` spelled in ideographs (一 + each hex digit): a title with nothing to write in ASCII, yet unique. */
export const ideographs = (tag: string) =>
  [...tag].map((digit) => String.fromCodePoint(0x4e00 + parseInt(digit, 16))).join('')

/** The slug the service gives a title with nothing to write in ASCII (the spec's PostSlug). */
export const fallbackSlug = (title: string) =>
  `post-${createHash('sha256').update(title, 'utf8').digest('hex').slice(0, 8)}`

export const readBySlug = (
  app: FastifyInstance,
  slug: string,
  account?: Account,
  headers: Record<string, string> = {},
) =>
  app.inject({
    method: 'GET',
    url: `/posts/by-slug/${encodeURIComponent(slug)}`,
    headers: { ...(account ? account.auth : {}), ...headers },
  })

export const changeSlug = (app: FastifyInstance, account: Account, id: string, slug: string) =>
  app.inject({ method: 'PATCH', url: `/posts/${id}`, headers: account.auth, payload: { slug } })
