// Which addresses a webhook may be delivered to (SSRF): none of the service's own network, of the
// cloud's metadata service, or of anything that is not one host on the public Internet. Used both
// when an endpoint is saved and on every connection a delivery makes (delivery.ts).
// The rules: every entry of IANA's special-purpose registries (special-purpose-registry.ts), and the
// few blocks below that those registries leave to other registries. An address is judged by the most
// specific block holding it, whose name is the rule a refusal gives (never the address itself).
import { isIP } from 'node:net'
import { IPV4_SPECIAL_PURPOSE, IPV6_SPECIAL_PURPOSE, type SpecialPurposeEntry } from './special-purpose-registry.ts'

/** Refused too, though in no special-purpose registry. */
const EXTRA_RULES: readonly SpecialPurposeEntry[] = [
  // Inside Link Local, named apart: the cloud's instance metadata (credentials).
  { block: '169.254.169.254/32', name: 'Cloud metadata service', rfc: '', global: false },
  { block: 'fd00:ec2::254/128', name: 'Cloud metadata service', rfc: '', global: false },
  { block: '224.0.0.0/4', name: 'Multicast', rfc: 'RFC 5771', global: null },
  { block: 'ff00::/8', name: 'Multicast', rfc: 'RFC 4291', global: null },
  { block: 'fec0::/10', name: 'Site-Local (deprecated)', rfc: 'RFC 3879', global: false },
  // Both embed an IPv4 address a stack may connect to.
  { block: '::/96', name: 'IPv4-Compatible (deprecated)', rfc: 'RFC 4291', global: false },
  { block: '::ffff:0:0:0/96', name: 'IPv4-Translated', rfc: 'RFC 2765', global: false },
]

interface Rule {
  bits: 32 | 128
  network: bigint
  prefix: number
  reason: string
}

/** An IPv4 or IPv6 address (no zone) as its number and width; IPv6 forms are read through the URL parser. */
function addressValue(address: string): { value: bigint; bits: 32 | 128 } {
  if (isIP(address) === 4)
    return { value: address.split('.').reduce((sum, octet) => (sum << 8n) | BigInt(octet), 0n), bits: 32 }
  // The WHATWG serialization: lower-case hex groups, at most one `::`, no dotted tail.
  const canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1)
  const [head = '', tail] = canonical.split('::')
  const groups = (part: string) => (part === '' ? [] : part.split(':'))
  const left = groups(head)
  const right = tail === undefined ? [] : groups(tail)
  const all = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right]
  return { value: all.reduce((sum, group) => (sum << 16n) | BigInt(parseInt(group, 16)), 0n), bits: 128 }
}

const toRule = (entry: SpecialPurposeEntry): Rule => {
  const [network = '', prefix = ''] = entry.block.split('/')
  const { value, bits } = addressValue(network)
  return {
    bits,
    network: value,
    prefix: Number(prefix),
    reason: entry.rfc === '' ? entry.name : `${entry.name}, ${entry.rfc}`,
  }
}

/** Most specific first: the first rule holding an address is the one that names its refusal. */
const RULES: readonly Rule[] = [...IPV4_SPECIAL_PURPOSE, ...IPV6_SPECIAL_PURPOSE, ...EXTRA_RULES]
  .map(toRule)
  .sort((a, b) => b.prefix - a.prefix)

const holds = (rule: Rule, value: bigint) =>
  value >> BigInt(rule.bits - rule.prefix) === rule.network >> BigInt(rule.bits - rule.prefix)

/**
 * The rule that forbids delivering a webhook to `address` (an IP address, as DNS or a URL gives
 * it), as "Private-Use, RFC 1918"; null when it is an ordinary public one. Something that is no
 * IP address is refused.
 */
export function forbiddenReason(address: string): string | null {
  // A zone (fe80::1%eth0) only qualifies a link-local address, which is refused on its own.
  const bare = address.replace(/%.*$/, '')
  if (isIP(bare) === 0) return 'not an IP address'
  const { value, bits } = addressValue(bare)
  for (const rule of RULES) if (rule.bits === bits && holds(rule, value)) return rule.reason
  return null
}
