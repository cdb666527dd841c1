// HTTP dates (RFC 9110 §5.6.7): written as IMF-fixdate, read in all three forms a recipient must
// accept. Anchored patterns without nested repetition, on header values the spec bounds: linear.

const DAYS = 'Mon|Tue|Wed|Thu|Fri|Sat|Sun'
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']
const MONTH = MONTHS.join('|')
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})'

/** `Sun, 06 Nov 1994 08:49:37 GMT` */
const IMF_FIXDATE = new RegExp(`^(?:${DAYS}), (\\d{2}) (${MONTH}) (\\d{4}) ${TIME} GMT$`)
/** `Sunday, 06-Nov-94 08:49:37 GMT` (obsolete) */
const RFC_850 = new RegExp(`^(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day, (\\d{2})-(${MONTH})-(\\d{2}) ${TIME} GMT$`)
/** `Sun Nov  6 08:49:37 1994` (obsolete: C's asctime()) */
const ASCTIME = new RegExp(`^(?:${DAYS}) (${MONTH}) ( \\d|\\d{2}) ${TIME} (\\d{4})$`)

/** `date` as IMF-fixdate, to the second below. */
export const httpDate = (date: Date) => date.toUTCString()

/** A two-digit year is the latest one with those digits no more than 50 years ahead (RFC 9110 §5.6.7). */
function fullYear(twoDigits: number): number {
  const now = new Date().getUTCFullYear()
  let year = Math.floor(now / 100) * 100 + twoDigits
  if (year > now + 50) year -= 100
  return year
}

function dateOf(year: number, month: string, day: number, hour: number, minute: number, second: number) {
  const monthIndex = MONTHS.indexOf(month)
  // A leap second is read as the second before it, the most Date can hold.
  const date = new Date(Date.UTC(2000, monthIndex, day, hour, minute, Math.min(second, 59)))
  // Set apart: Date.UTC reads years 0 to 99 as 1900 to 1999.
  date.setUTCFullYear(year, monthIndex, day)
  // Date.UTC rolls 31 Feb over into March: a date that does not exist is no date.
  const exists =
    date.getUTCDate() === day && date.getUTCMonth() === monthIndex && hour < 24 && minute < 60 && second <= 60
  return exists ? date : null
}

/** The date a header value gives, or null when it is not an HTTP date (such a header is ignored). */
export function parseHttpDate(value: string | undefined): Date | null {
  if (value === undefined) return null
  let match = IMF_FIXDATE.exec(value)
  if (match) {
    const [, day, month, year, hour, minute, second] = match
    return dateOf(Number(year), month!, Number(day), Number(hour), Number(minute), Number(second))
  }
  match = RFC_850.exec(value)
  if (match) {
    const [, day, month, year, hour, minute, second] = match
    return dateOf(fullYear(Number(year)), month!, Number(day), Number(hour), Number(minute), Number(second))
  }
  match = ASCTIME.exec(value)
  if (match) {
    const [, month, day, hour, minute, second, year] = match
    return dateOf(Number(year), month!, Number(day), Number(hour), Number(minute), Number(second))
  }
  return null
}
