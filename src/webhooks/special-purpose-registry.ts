// The IANA special-purpose address registries, every entry, as the webhook address policy
// (address-policy.ts) reads them. Sources:
//   IANA IPv4 Special-Purpose Address Registry, https://www.iana.org/assignments/iana-ipv4-special-registry/
//   IANA IPv6 Special-Purpose Address Registry, https://www.iana.org/assignments/iana-ipv6-special-registry/
// Contents as of 2025-04 (newest entries: IPv6 100:0:0:1::/64, RFC 9780; 3fff::/20, RFC 9637; 5f00::/16,
// RFC 9602; 2001:1::3/128, RFC 9665), transcribed without network access here: compare with the
// registries when they change (a new entry is a new line below; the test walks every line).
//
// `global` is the registry's "Globally Reachable" column (null where it says N/A). Every entry is
// refused, those marked reachable included, because none is one ordinary host on the public Internet:
//  - anycast services (PCP, TURN, AS112, AMT, 6a44, DNS-SD SRP): the instance reached is the nearest,
//    chosen by routing and often inside the service's own network, and none receives webhooks;
//  - translation prefixes (NAT64 64:ff9b::/96 and 64:ff9b:1::/48, Teredo, 6to4, DS-Lite): a gateway
//    connects to the IPv4 address they embed, which may be any address refused here;
//  - identifiers that are not locators (ORCHIDv2, DETs).

export interface SpecialPurposeEntry {
  block: string
  name: string
  rfc: string
  global: boolean | null
}

export const IPV4_SPECIAL_PURPOSE: readonly SpecialPurposeEntry[] = [
  { block: '0.0.0.0/8', name: '"This network"', rfc: 'RFC 791', global: false },
  { block: '0.0.0.0/32', name: '"This host on this network"', rfc: 'RFC 1122', global: false },
  { block: '10.0.0.0/8', name: 'Private-Use', rfc: 'RFC 1918', global: false },
  { block: '100.64.0.0/10', name: 'Shared Address Space', rfc: 'RFC 6598', global: false },
  { block: '127.0.0.0/8', name: 'Loopback', rfc: 'RFC 1122', global: false },
  { block: '169.254.0.0/16', name: 'Link Local', rfc: 'RFC 3927', global: false },
  { block: '172.16.0.0/12', name: 'Private-Use', rfc: 'RFC 1918', global: false },
  { block: '192.0.0.0/24', name: 'IETF Protocol Assignments', rfc: 'RFC 6890', global: false },
  { block: '192.0.0.0/29', name: 'IPv4 Service Continuity Prefix', rfc: 'RFC 7335', global: false },
  { block: '192.0.0.8/32', name: 'IPv4 dummy address', rfc: 'RFC 7600', global: false },
  { block: '192.0.0.9/32', name: 'Port Control Protocol Anycast', rfc: 'RFC 7723', global: true },
  { block: '192.0.0.10/32', name: 'Traversal Using Relays around NAT Anycast', rfc: 'RFC 8155', global: true },
  { block: '192.0.0.170/32', name: 'NAT64/DNS64 Discovery', rfc: 'RFC 8880', global: false },
  { block: '192.0.0.171/32', name: 'NAT64/DNS64 Discovery', rfc: 'RFC 8880', global: false },
  { block: '192.0.2.0/24', name: 'Documentation (TEST-NET-1)', rfc: 'RFC 5737', global: false },
  { block: '192.31.196.0/24', name: 'AS112-v4', rfc: 'RFC 7535', global: true },
  { block: '192.52.193.0/24', name: 'AMT', rfc: 'RFC 7450', global: true },
  { block: '192.88.99.0/24', name: 'Deprecated (6to4 Relay Anycast)', rfc: 'RFC 7526', global: null },
  { block: '192.88.99.2/32', name: '6a44-relay anycast address', rfc: 'RFC 6751', global: true },
  { block: '192.168.0.0/16', name: 'Private-Use', rfc: 'RFC 1918', global: false },
  { block: '192.175.48.0/24', name: 'Direct Delegation AS112 Service', rfc: 'RFC 7534', global: true },
  { block: '198.18.0.0/15', name: 'Benchmarking', rfc: 'RFC 2544', global: false },
  { block: '198.51.100.0/24', name: 'Documentation (TEST-NET-2)', rfc: 'RFC 5737', global: false },
  { block: '203.0.113.0/24', name: 'Documentation (TEST-NET-3)', rfc: 'RFC 5737', global: false },
  { block: '240.0.0.0/4', name: 'Reserved', rfc: 'RFC 1112', global: false },
  { block: '255.255.255.255/32', name: 'Limited Broadcast', rfc: 'RFC 919', global: false },
]

export const IPV6_SPECIAL_PURPOSE: readonly SpecialPurposeEntry[] = [
  { block: '::1/128', name: 'Loopback Address', rfc: 'RFC 4291', global: false },
  { block: '::/128', name: 'Unspecified Address', rfc: 'RFC 4291', global: false },
  { block: '::ffff:0:0/96', name: 'IPv4-mapped Address', rfc: 'RFC 4291', global: false },
  { block: '64:ff9b::/96', name: 'IPv4-IPv6 Translat.', rfc: 'RFC 6052', global: true },
  { block: '64:ff9b:1::/48', name: 'IPv4-IPv6 Translat.', rfc: 'RFC 8215', global: false },
  { block: '100::/64', name: 'Discard-Only Address Block', rfc: 'RFC 6666', global: false },
  { block: '100:0:0:1::/64', name: 'Dummy IPv6 Prefix', rfc: 'RFC 9780', global: false },
  { block: '2001::/23', name: 'IETF Protocol Assignments', rfc: 'RFC 2928', global: false },
  { block: '2001::/32', name: 'TEREDO', rfc: 'RFC 4380', global: null },
  { block: '2001:1::1/128', name: 'Port Control Protocol Anycast', rfc: 'RFC 7723', global: true },
  { block: '2001:1::2/128', name: 'Traversal Using Relays around NAT Anycast', rfc: 'RFC 8155', global: true },
  { block: '2001:1::3/128', name: 'DNS-SD Service Registration Protocol Anycast', rfc: 'RFC 9665', global: true },
  { block: '2001:2::/48', name: 'Benchmarking', rfc: 'RFC 5180', global: false },
  { block: '2001:3::/32', name: 'AMT', rfc: 'RFC 7450', global: true },
  { block: '2001:4:112::/48', name: 'AS112-v6', rfc: 'RFC 7535', global: true },
  { block: '2001:10::/28', name: 'Deprecated (previously ORCHID)', rfc: 'RFC 4843', global: null },
  { block: '2001:20::/28', name: 'ORCHIDv2', rfc: 'RFC 7343', global: true },
  { block: '2001:30::/28', name: 'Drone Remote ID Protocol Entity Tags (DETs) Prefix', rfc: 'RFC 9374', global: true },
  { block: '2001:db8::/32', name: 'Documentation', rfc: 'RFC 3849', global: false },
  { block: '2002::/16', name: '6to4', rfc: 'RFC 3056', global: null },
  { block: '2620:4f:8000::/48', name: 'Direct Delegation AS112 Service', rfc: 'RFC 7534', global: true },
  { block: '3fff::/20', name: 'Documentation', rfc: 'RFC 9637', global: false },
  { block: '5f00::/16', name: 'Segment Routing (SRv6) SIDs', rfc: 'RFC 9602', global: false },
  { block: 'fc00::/7', name: 'Unique-Local', rfc: 'RFC 4193', global: false },
  { block: 'fe80::/10', name: 'Link-Local Unicast', rfc: 'RFC 4291', global: false },
]
