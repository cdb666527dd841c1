// Whether the connection's peer is one of the proxies TRUST_PROXY names: the same question Fastify
// asks (through proxy-addr) before it believes X-Forwarded-For for request.ip, answered here for
// the parts that judge headers by who sent them (the request id, the warning of forwarding headers
// from peers nobody named). node:net's BlockList matches addresses and CIDR ranges of both families,
// and an IPv4-mapped IPv6 peer (`::ffff:10.0.0.5`) against IPv4 rules, as proxy-addr does.
import { BlockList, isIPv6 } from 'node:net'

export interface Proxies {
  /** Whether TRUST_PROXY names any proxy at all. */
  readonly configured: boolean
  /** Whether `peer`, a connection's remote address, is one of them. */
  trusts(peer: string | undefined): boolean
}

/** The proxies of config.trustProxy (false, or addresses and CIDR ranges already checked by the config). */
export function proxyTrust(trustProxy: false | readonly string[]): Proxies {
  if (trustProxy === false || trustProxy.length === 0) return { configured: false, trusts: () => false }
  const list = new BlockList()
  for (const entry of trustProxy) {
    const [address, prefix] = entry.split('/') as [string, string | undefined]
    const family = isIPv6(address) ? 'ipv6' : 'ipv4'
    if (prefix === undefined) list.addAddress(address, family)
    else list.addSubnet(address, Number(prefix), family)
  }
  return {
    configured: true,
    trusts: (peer) => peer !== undefined && list.check(peer, isIPv6(peer) ? 'ipv6' : 'ipv4'),
  }
}

/** A peer's address as an operator writes it: an IPv4-mapped IPv6 address as the IPv4 one it carries. */
export function shownAddress(peer: string): string {
  return peer.startsWith('::ffff:') && peer.includes('.') ? peer.slice('::ffff:'.length) : peer
}
