// What a session records about where it began: the client's User-Agent header and address, as
// listSessions shows them to the account's owner. Both come from the client, so they are bounded
// before they are stored: no control characters (a header cannot hold a newline, but it can hold
// tabs and, read as Latin-1, C1 controls that terminals and log viewers act on), at most 256
// characters of user agent and 100 of address (an IPv6 address with a zone is far shorter).

export const USER_AGENT_MAX_CHARS = 256
const ADDRESS_MAX_CHARS = 100

/** Control characters (Unicode's Cc: C0, DEL and C1). */
const CONTROL = /\p{Cc}+/gu

export interface SignInClient {
  /** The User-Agent header as received, if any. */
  userAgent?: string
  /** The client address as the HTTP layer resolved it (trusted proxies applied). */
  address?: string
}

export interface SessionDetails {
  userAgent: string | null
  clientAddress: string | null
}

/** Cut to `max` characters (code points, as the column and the contract count them). */
const cut = (text: string, max: number) => (text.length <= max ? text : Array.from(text).slice(0, max).join(''))

/**
 * Node reads header bytes as Latin-1, so a UTF-8 header ("Browsér") arrives as mojibake
 * ("BrowsÃ©r"). Its bytes are decoded as UTF-8 when they are valid UTF-8; otherwise (a header
 * really sent in Latin-1) it is kept as read. Every character of a Latin-1 read is one byte, so
 * a string holding anything past U+00FF did not come from the wire and is kept too.
 */
export function headerText(value: string): string {
  // eslint-disable-next-line no-control-regex -- all ASCII: nothing to decode
  if (/^[\x00-\x7f]*$/.test(value) || /[^\x00-\xff]/.test(value)) return value
  const decoded = Buffer.from(value, 'latin1').toString('utf8')
  return decoded.includes('\uFFFD') ? value : decoded
}

export function sessionDetails(client: SignInClient): SessionDetails {
  const userAgent = cut(
    headerText(client.userAgent ?? '')
      .replace(CONTROL, ' ')
      .trim(),
    USER_AGENT_MAX_CHARS,
  ).trimEnd()
  const address = cut((client.address ?? '').replace(CONTROL, ''), ADDRESS_MAX_CHARS)
  return { userAgent: userAgent === '' ? null : userAgent, clientAddress: address === '' ? null : address }
}
