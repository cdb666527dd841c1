// The webhook address rules, without the app: every entry of IANA's IPv4 and IPv6 special-purpose
// registries refused at its first and last address, named by its most specific entry; the blocks no
// registry lists; and public addresses, the neighbours of refused blocks among them, allowed.
import t from 'tap'
import { forbiddenReason } from '../../src/webhooks/address-policy.ts'
import {
  IPV4_SPECIAL_PURPOSE,
  IPV6_SPECIAL_PURPOSE,
  type SpecialPurposeEntry,
} from '../../src/webhooks/special-purpose-registry.ts'

/** A block as numbers, computed here apart from the policy's own reading: [first, last, width]. */
function bounds(entry: SpecialPurposeEntry): [bigint, bigint, 32 | 128] {
  const [network = '', prefix = ''] = entry.block.split('/')
  const width = network.includes(':') ? 128 : 32
  let value = 0n
  if (width === 32) for (const octet of network.split('.')) value = (value << 8n) + BigInt(octet)
  else {
    const [head = '', tail = ''] = network.split('::')
    const left = head === '' ? [] : head.split(':')
    const right = tail === '' ? [] : tail.split(':')
    for (const group of [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right])
      value = (value << 16n) + BigInt(parseInt(group, 16))
  }
  const size = 1n << BigInt(width - Number(prefix))
  return [value, value + size - 1n, width]
}

const text = (value: bigint, width: 32 | 128) =>
  width === 32
    ? [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 255n)).join('.')
    : [112n, 96n, 80n, 64n, 48n, 32n, 16n, 0n].map((shift) => ((value >> shift) & 0xffffn).toString(16)).join(':')

t.test('every entry of both special-purpose registries is refused at its first and last address', async (t) => {
  // The registries as transcribed (2025-04): a lost line fails here before it is missed.
  t.equal(IPV4_SPECIAL_PURPOSE.length, 26, 'IPv4 registry entries')
  t.equal(IPV6_SPECIAL_PURPOSE.length, 25, 'IPv6 registry entries')
  const registry = [...IPV4_SPECIAL_PURPOSE, ...IPV6_SPECIAL_PURPOSE].map((entry) => ({ entry, span: bounds(entry) }))
  let walked = 0
  for (const { entry, span } of registry) {
    for (const value of [span[0], span[1]]) {
      // The most specific entry holding the address names the rule (0.0.0.0 is "This host", not "This network").
      const holding = registry
        .filter(({ span: [first, last, width] }) => width === span[2] && first <= value && value <= last)
        .sort((a, b) => Number(a.span[1] - a.span[0] - (b.span[1] - b.span[0])))[0]!.entry
      const address = text(value, span[2])
      t.equal(forbiddenReason(address), `${holding.name}, ${holding.rfc}`, `${address} (${entry.block})`)
      walked++
    }
  }
  t.equal(walked, 2 * 51, 'first and last address of every entry')
})

t.test('the blocks no special-purpose registry lists, and public neighbours of refused blocks', async (t) => {
  const cases: [string, string | null][] = [
    ['169.254.169.254', 'Cloud metadata service'],
    ['::ffff:a9fe:a9fe', 'IPv4-mapped Address, RFC 4291'],
    ['fd00:ec2::254', 'Cloud metadata service'],
    ['224.0.0.251', 'Multicast, RFC 5771'],
    ['239.255.255.255', 'Multicast, RFC 5771'],
    ['ff02::fb', 'Multicast, RFC 4291'],
    ['fec0::1', 'Site-Local (deprecated), RFC 3879'],
    ['::7f00:1', 'IPv4-Compatible (deprecated), RFC 4291'],
    ['::ffff:0:7f00:1', 'IPv4-Translated, RFC 2765'],
    ['::ffff:0:127.0.0.1', 'IPv4-Translated, RFC 2765'],
    ['fe80::1%eth0', 'Link-Local Unicast, RFC 4291'],
    ['not-an-ip', 'not an IP address'],
    ['192.88.98.255', null],
    ['192.88.100.0', null],
    ['192.31.195.255', null],
    ['192.175.49.0', null],
    ['172.32.0.1', null],
    ['100.128.0.1', null],
    ['8.8.8.8', null],
    ['2001:200::1', null],
    ['2620:4f:8001::1', null],
    ['2606:4700:4700::1111', null],
  ]
  for (const [address, reason] of cases) t.equal(forbiddenReason(address), reason, address)
})
