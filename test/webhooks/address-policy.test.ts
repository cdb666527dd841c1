// The forbidden address classes, without the app: each class in IPv4 and IPv6, IPv4-mapped forms
// judged as the address they carry, and public addresses allowed.
import t from 'tap'
import { forbiddenReason } from '../../src/webhooks/address-policy.ts'

t.test('each forbidden class, and public addresses', async (t) => {
  const cases: [string, string | null][] = [
    ['127.0.0.1', 'a loopback address'],
    ['127.255.0.9', 'a loopback address'],
    ['::1', 'a loopback address'],
    ['10.255.0.1', 'a private address'],
    ['172.31.255.255', 'a private address'],
    ['192.168.10.1', 'a private address'],
    ['fc00::1', 'a private address'],
    ['fdff::1', 'a private address'],
    ['169.254.0.1', 'a link-local address'],
    ['fe80::abcd', 'a link-local address'],
    ['169.254.169.254', 'a metadata address'],
    ['fd00:ec2::254', 'a metadata address'],
    ['0.0.0.0', 'an unspecified address'],
    ['::', 'an unspecified address'],
    ['100.64.0.1', 'a shared (CGNAT) address'],
    ['100.127.255.254', 'a shared (CGNAT) address'],
    ['224.0.0.251', 'a multicast address'],
    ['ff02::fb', 'a multicast address'],
    ['::ffff:127.0.0.1', 'a loopback address'],
    ['::ffff:7f00:1', 'a loopback address'],
    ['0:0:0:0:0:ffff:10.0.0.1', 'a private address'],
    ['::ffff:169.254.169.254', 'a metadata address'],
    ['::ffff:a9fe:a9fe', 'a metadata address'],
    ['64:ff9b::a9fe:a9fe', 'a translated (NAT64) address'],
    ['2002:7f00:1::', 'a translated (6to4) address'],
    ['::ffff:0:7f00:1', 'a translated (SIIT) address'],
    ['::ffff:0:127.0.0.1', 'a translated (SIIT) address'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'a translated (Teredo) address'],
    ['fec0::1', 'a site-local address'],
    ['100::1', 'a discard-only address'],
    ['not-an-ip', 'not an IP address'],
    ['172.32.0.1', null],
    ['100.128.0.1', null],
    ['8.8.8.8', null],
    ['2606:4700:4700::1111', null],
    ['::ffff:8.8.8.8', null],
  ]
  for (const [address, reason] of cases) t.equal(forbiddenReason(address), reason, address)
})
