// Conditional requests (RFC 9110 §13.1.2): If-None-Match uses the weak comparison, so `W/`
// prefixes are ignored, and `*`, sent alone, matches any current representation (it is no
// entity-tag: neither `W/*` nor a list holding it is one).
import { parseHttpDate } from './http-date.ts'

export const ifNoneMatchHits = (header: string | undefined, etag: string) =>
  header !== undefined &&
  (header.trim() === '*' || header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag))

/**
 * How long a change to lists may be dated before it commits (src/db/list-generation.ts dates it
 * just before), with room to spare: a read meanwhile still sees the generation before it.
 */
const COMMIT_ALLOWANCE_MS = 4_000

const toSecond = (date: Date) => Math.floor(date.getTime() / 1000) * 1000

/**
 * The Last-Modified to send for a representation last changed at `changedAt`, read at `now` (both
 * on one clock, the database's). HTTP dates count whole seconds, so the date sent is never later
 * than a second before any change this read could have missed: a change committed after the read,
 * dated at most COMMIT_ALLOWANCE_MS before it. A copy dated in the second of a later change would
 * otherwise pass for current under If-Modified-Since. For a change that old already, that is
 * `changedAt` itself; a fresher one is dated a little early, which costs an If-Modified-Since
 * client one full answer more, never a stale 304.
 */
export const lastModifiedOf = (changedAt: Date, now: Date) =>
  new Date(Math.min(toSecond(changedAt), toSecond(new Date(now.getTime() - COMMIT_ALLOWANCE_MS)) - 1000))

/**
 * Whether a GET is answered 304 (RFC 9110 §13.2.2): by If-None-Match when it is sent, whatever
 * If-Modified-Since says; otherwise by If-Modified-Since, when it is an HTTP date (anything else is
 * ignored) no earlier than the second of the last change. A date later than `now` is invalid
 * (RFC 9110 §13.1.3) and ignored too: it would otherwise earn a 304 for ever.
 */
export function notModified(
  headers: { 'if-none-match'?: string; 'if-modified-since'?: string },
  etag: string,
  changedAt: Date,
  now: Date,
): boolean {
  if (headers['if-none-match'] !== undefined) return ifNoneMatchHits(headers['if-none-match'], etag)
  const since = parseHttpDate(headers['if-modified-since'])
  return since !== null && since.getTime() <= now.getTime() && toSecond(changedAt) <= since.getTime()
}
