// Opaque page cursors: base64url of the last row's sort key. A cursor that does not decode is a
// 400 on /query/cursor, never a 500.
import { ApiError } from './errors/api-error.ts'

/** The spec's `Limit` default; ajv fills it in, the types only know the parameter is optional. */
export const DEFAULT_PAGE_LIMIT = 20

export interface Position {
  at: Date
  id: string
}

/**
 * Keyset paging on (createdAt, id), as a Prisma filter: the rows after `after` in ascending ('gt')
 * or descending ('lt') order, or every row when there is no position yet.
 */
export const afterPosition = (after: Position | undefined, direction: 'gt' | 'lt') =>
  after === undefined
    ? {}
    : { OR: [{ createdAt: { [direction]: after.at } }, { createdAt: after.at, id: { [direction]: after.id } }] }

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
/**
 * Exactly what `toISOString` writes for years 1 to 9999. Date parses more (BC and six-digit years)
 * that the database cannot compare with, so a forged cursor would otherwise be a 500.
 */
const ISO_TIME = /^(?!0000)\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

const invalidCursor = () =>
  new ApiError(400, 'VALIDATION_FAILED', 'The cursor is not one this API issued.', [
    { path: '/query/cursor', message: 'is not a valid cursor' },
  ])

export const encodeCursor = ({ at, id }: Position) => Buffer.from(`${at.toISOString()}|${id}`).toString('base64url')

export function decodeCursor(cursor: string | undefined): Position | undefined {
  if (cursor === undefined) return undefined
  const [iso, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|')
  const at = new Date(iso ?? '')
  if (!ISO_TIME.test(iso ?? '') || Number.isNaN(at.getTime()) || id === undefined || !UUID.test(id))
    throw invalidCursor()
  const position = { at, id }
  // Only the very string this API issues for the position. That refuses a time the pattern lets
  // through but is no real one (2025-02-30 reads as 2 March), and the other strings that name an
  // issued cursor's page (base64url decoding skips what it cannot read, the split drops what follows
  // the id), each of which would be one more list-cache entry for one page.
  if (encodeCursor(position) !== cursor) throw invalidCursor()
  return position
}

/**
 * How many of `items`, from the first, fit a page whose items weigh at most `maxBytes` as a JSON
 * array in UTF-8; at least one (a single item larger than the budget has a page of its own).
 * Every list's page has this byte budget beside its item limit (LIST_PAGE_MAX_BYTES): without it
 * a page of 100 heavy items could be tens of megabytes that one account wrote for everyone to read.
 */
export function itemsWithin(items: readonly unknown[], maxBytes: number): number {
  let bytes = 1 // `[` and `]`, and one comma fewer than items
  for (let index = 0; index < items.length; index++) {
    bytes += Buffer.byteLength(JSON.stringify(items[index])) + 1
    if (bytes > maxBytes && index > 0) return index
  }
  return items.length
}

/**
 * Splits the `limit + 1` rows a query fetched into the page (as `toItem` makes each item, at most
 * `maxBytes` of them) and the cursor of the next one, `cursorOf` its last row: after the last item
 * the page holds, so the next page starts with the first item this one left out.
 */
function cutPage<T, U>(
  rows: T[],
  limit: number,
  cursorOf: (row: T) => string,
  toItem: (row: T) => U,
  maxBytes: number,
) {
  const candidates = rows.slice(0, limit).map(toItem)
  const count = itemsWithin(candidates, maxBytes)
  const last = rows[count - 1]
  return {
    items: candidates.slice(0, count),
    nextCursor: rows.length > count && last !== undefined ? cursorOf(last) : null,
  }
}

/** A page of a list sorted by time and id (see cutPage). */
export const pageOf = <T, U>(
  rows: T[],
  limit: number,
  position: (row: T) => Position,
  toItem: (row: T) => U,
  maxBytes: number,
) => cutPage(rows, limit, (row) => encodeCursor(position(row)), toItem, maxBytes)

/**
 * Cursors for lists sorted by one unique string (categories by slug): base64url of the last key.
 * `pattern` is the key's own format, so a forged cursor is a 400, never a query on garbage.
 */
export function decodeKeyCursor(cursor: string | undefined, pattern: RegExp): string | undefined {
  if (cursor === undefined) return undefined
  const key = Buffer.from(cursor, 'base64url').toString('utf8')
  if (!pattern.test(key) || Buffer.from(key).toString('base64url') !== cursor) throw invalidCursor()
  return key
}

/** A page of a list sorted by one unique string key (see cutPage). */
export const keyPageOf = <T, U>(
  rows: T[],
  limit: number,
  key: (row: T) => string,
  toItem: (row: T) => U,
  maxBytes: number,
) => cutPage(rows, limit, (row) => Buffer.from(key(row)).toString('base64url'), toItem, maxBytes)
