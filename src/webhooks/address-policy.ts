// Which addresses a webhook may be delivered to (SSRF): none of the service's own network, of the
// cloud's metadata service, or of anything that is not one host on the public Internet. Used both
// when an endpoint is saved and on every connection a delivery makes (delivery.ts).
import { BlockList, isIP } from 'node:net'

/** Each forbidden range, with the reason a refusal names. */
const RANGES: readonly [reason: string, family: 'ipv4' | 'ipv6', network: string, prefix: number][] = [
  ['a metadata address', 'ipv4', '169.254.169.254', 32],
  ['a metadata address', 'ipv6', 'fd00:ec2::254', 128],
  ['an unspecified address', 'ipv4', '0.0.0.0', 8],
  ['a loopback address', 'ipv4', '127.0.0.0', 8],
  ['a private address', 'ipv4', '10.0.0.0', 8],
  ['a private address', 'ipv4', '172.16.0.0', 12],
  ['a private address', 'ipv4', '192.168.0.0', 16],
  ['a link-local address', 'ipv4', '169.254.0.0', 16],
  ['a shared (CGNAT) address', 'ipv4', '100.64.0.0', 10],
  ['a reserved address', 'ipv4', '192.0.0.0', 24],
  ['a documentation address', 'ipv4', '192.0.2.0', 24],
  ['a benchmarking address', 'ipv4', '198.18.0.0', 15],
  ['a documentation address', 'ipv4', '198.51.100.0', 24],
  ['a documentation address', 'ipv4', '203.0.113.0', 24],
  ['a multicast address', 'ipv4', '224.0.0.0', 4],
  ['a reserved address', 'ipv4', '240.0.0.0', 4],
  ['an unspecified address', 'ipv6', '::', 128],
  ['a loopback address', 'ipv6', '::1', 128],
  ['a private address', 'ipv6', 'fc00::', 7],
  ['a link-local address', 'ipv6', 'fe80::', 10],
  ['a multicast address', 'ipv6', 'ff00::', 8],
  ['a documentation address', 'ipv6', '2001:db8::', 32],
  // NAT64, 6to4, SIIT and Teredo embed an IPv4 address a gateway connects to: refused whole, as
  // they could reach any of the ranges above.
  ['a translated (NAT64) address', 'ipv6', '64:ff9b::', 96],
  ['a translated (NAT64) address', 'ipv6', '64:ff9b:1::', 48],
  ['a translated (6to4) address', 'ipv6', '2002::', 16],
  ['a translated (SIIT) address', 'ipv6', '::ffff:0:0:0', 96],
  ['a translated (Teredo) address', 'ipv6', '2001::', 32],
  ['a site-local address', 'ipv6', 'fec0::', 10],
  ['a discard-only address', 'ipv6', '100::', 64],
  ['a deprecated (IPv4-compatible) address', 'ipv6', '::', 96],
]

const lists = new Map<string, BlockList>()
for (const [reason, family, network, prefix] of RANGES) {
  let list = lists.get(reason)
  if (list === undefined) lists.set(reason, (list = new BlockList()))
  list.addSubnet(network, prefix, family)
}

/** `::ffff:10.0.0.1` and `::ffff:a00:1` are the IPv4 address they carry: judged as that. */
function unmapped(address: string): { address: string; family: 'ipv4' | 'ipv6' } {
  const lower = address.toLowerCase()
  const dotted = /^(?:0{0,4}:){0,5}:?ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower)
  if (dotted) return { address: dotted[1]!, family: 'ipv4' }
  const hex = /^(?:0{0,4}:){0,5}:?ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower)
  if (hex) {
    const high = parseInt(hex[1]!, 16)
    const low = parseInt(hex[2]!, 16)
    return { address: `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`, family: 'ipv4' }
  }
  return { address, family: isIP(address) === 4 ? 'ipv4' : 'ipv6' }
}

/**
 * Why a webhook may not be delivered to `address` (an IP address, as DNS or a URL gives it), as
 * "a private address"; null when it is a public one. Something that is no IP address is refused.
 */
export function forbiddenReason(address: string): string | null {
  if (isIP(address) === 0) return 'not an IP address'
  const { address: judged, family } = unmapped(address)
  for (const [reason, list] of lists) if (list.check(judged, family)) return reason
  return null
}
