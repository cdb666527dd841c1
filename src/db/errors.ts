// Prisma's error codes that stores turn into answers (409, 404) instead of letting them become 500s,
// and the errors that mean the database itself is out of reach (the error handler answers 503).
import { Prisma } from '../generated/prisma/client.ts'

const hasCode = (error: unknown, code: string) =>
  error instanceof Prisma.PrismaClientKnownRequestError && error.code === code

/** A unique constraint refused the write. */
export const isUniqueViolation = (error: unknown) => hasCode(error, 'P2002')

/**
 * A write named a user that no longer exists (a post's or comment's author, a session's or token's
 * user): the account was deleted while the write waited on its row. The caller's session went
 * with it.
 */
export function isUserGone(error: unknown): boolean {
  // P2003 from a model query; P2010 ("raw query failed") from a store's own SQL, with the same cause.
  const cause = (error as Inspectable).meta?.driverAdapterError?.cause
  const foreignKey =
    hasCode(error, 'P2003') || (hasCode(error, 'P2010') && cause?.kind === 'ForeignKeyConstraintViolation')
  if (!foreignKey) return false
  const constraint = cause?.constraint
  return (
    (typeof constraint?.index === 'string' && /_(author|user)_id_fkey$/.test(constraint.index)) ||
    (Array.isArray(constraint?.fields) && constraint.fields.some((field) => /^(author|user)_id$/.test(String(field))))
  )
}

/** The record to update or delete no longer exists (deleted meanwhile). */
export const isMissingRecord = (error: unknown) => hasCode(error, 'P2025')

/** Socket errors of a connection that could not be made or was lost. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
])
/** Prisma: can't reach / timed out / connection closed / no connection from the pool in time. */
const PRISMA_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024'])
/** The driver adapter's kinds for the same (see @prisma/adapter-pg's convertDriverError). */
const ADAPTER_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections'])
/**
 * SQLSTATEs (PostgreSQL's errcodes table) of a database that cannot serve now but may soon, where
 * retrying later is the client's right move: class 08 (connection exception), class 53
 * (insufficient resources: disk full, out of memory, too many connections), class 57 (operator
 * intervention: shutdown, crash, starting up, query cancelled, database dropped, idle session
 * ended), 55000 (a database not accepting connections), 55P03 (a lock not available in time) and
 * 25006 (a read-only transaction: a standby, during a failover). Class 58 (I/O errors) and XX
 * (internal errors) stay 500: faults, logged as errors.
 */
const UNAVAILABLE_SQLSTATE = /^(08|53|57)[0-9A-Z]{3}$|^(55000|55P03|25006)$/
/**
 * Prisma's P2028 "Unable to start a transaction in the given time": every connection (PGlite's only
 * one) is busy in other transactions past maxWait. Other P2028s (a transaction used after it ended)
 * are bugs.
 */
const TRANSACTION_START_TIMEOUT = /Unable to start a transaction in the given time/
/** node-postgres raises these as plain Errors, without a code. */
const PG_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error/

interface Inspectable {
  code?: unknown
  message?: unknown
  cause?: unknown
  meta?: {
    driverAdapterError?: {
      cause?: {
        kind?: unknown
        code?: unknown
        originalCode?: unknown
        constraint?: { index?: unknown; fields?: unknown }
      }
    }
  }
}

/**
 * Whether `error` (or anything in its `cause` chain) says the database is unreachable, restarting or
 * out of connections — a condition that passes, answered 503, not a bug answered 500.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let at = error, depth = 0; at !== null && typeof at === 'object' && depth < 8; depth++) {
    const { code, message, cause, meta } = at as Inspectable
    const adapterCause = meta?.driverAdapterError?.cause
    if (
      typeof code === 'string' &&
      (SOCKET_CODES.has(code) || PRISMA_CODES.has(code) || UNAVAILABLE_SQLSTATE.test(code))
    )
      return true
    if (code === 'P2028' && typeof message === 'string' && TRANSACTION_START_TIMEOUT.test(message)) return true
    if (typeof adapterCause?.kind === 'string' && ADAPTER_KINDS.has(adapterCause.kind)) return true
    // The adapter names some SQLSTATEs by a kind of its own, keeping the code as originalCode.
    const sqlState = adapterCause?.kind === 'postgres' ? adapterCause.code : adapterCause?.originalCode
    if (typeof sqlState === 'string' && UNAVAILABLE_SQLSTATE.test(sqlState)) return true
    if (typeof message === 'string' && PG_MESSAGES.test(message)) return true
    at = cause
  }
  return false
}
