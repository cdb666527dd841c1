// The client a per-address limit counts: an IPv4 address as it is, an IPv6 address by its /64.
// A subscriber is usually given a whole /64 (and picks new addresses in it at will, RFC 4941), so
// counting each IPv6 address on its own would give one client 2^64 fresh allowances. An
// IPv4-mapped IPv6 address (`::ffff:203.0.113.7`, what a dual-stack socket reports) is that IPv4
// client. Anything that is not an address (a trusted proxy's odd header) is kept as it is.
import { isIPv4, isIPv6 } from 'node:net'

/** The eight 16-bit groups of an IPv6 address (zone already removed). */
function groupsOf(address: string): number[] {
  let text = address
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)
  if (dotted) {
    const [a, b, c, d] = dotted[1]!.split('.').map(Number) as [number, number, number, number]
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const [head, tail] = text.split('::') as [string, string | undefined]
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)))
  if (tail === undefined) return parse(head)
  const [front, back] = [parse(head), parse(tail)]
  return [...front, ...Array<number>(8 - front.length - back.length).fill(0), ...back]
}

export function addressKey(ip: string): string {
  if (isIPv4(ip)) return ip
  const address = ip.split('%')[0]!
  if (!isIPv6(address)) return ip.slice(0, 100)
  const groups = groupsOf(address)
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join('.')
  }
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(':')}::/64`
}
