// Whether a peer is a proxy TRUST_PROXY names (src/http/headers/proxies.ts) agrees with Fastify's
// own answer, the one request.ip follows: for addresses and CIDR ranges of both families, and for
// IPv4 peers seen as IPv4-mapped IPv6 addresses (`::ffff:10.0.0.5`, on a dual-stack listener).
import Fastify from 'fastify'
import t from 'tap'
import { proxyTrust, shownAddress } from '../../../src/http/headers/proxies.ts'

const TRUST_PROXY = ['127.0.0.2', '10.0.0.0/8', '192.0.2.128/25', 'fd00::/8', '2001:db8::1', '::ffff:198.51.100.0/120']
const PEERS = {
  '127.0.0.2': true,
  '::ffff:127.0.0.2': true,
  '127.0.0.3': false,
  '10.200.1.1': true,
  '::ffff:10.200.1.1': true,
  '11.0.0.1': false,
  '192.0.2.200': true,
  '192.0.2.100': false,
  'fd12:3456::1': true,
  'fe80::1': false,
  '2001:db8::1': true,
  '2001:db8::2': false,
  '198.51.100.9': true,
  '::ffff:198.51.100.9': true,
  '198.51.101.9': false,
}

t.test('the peers TRUST_PROXY names, as Fastify judges them', async (t) => {
  const proxies = proxyTrust(TRUST_PROXY)
  t.equal(proxies.configured, true)
  const app = Fastify({ trustProxy: TRUST_PROXY })
  app.get('/', async (request) => request.ip)
  t.teardown(() => app.close())
  for (const [peer, trusted] of Object.entries(PEERS)) {
    const ip = await app.inject({ url: '/', remoteAddress: peer, headers: { 'x-forwarded-for': '203.0.113.7' } })
    t.equal(ip.body === '203.0.113.7', trusted, `Fastify: ${peer} ${trusted ? 'trusted' : 'not trusted'}`)
    t.equal(proxies.trusts(peer), trusted, `here: ${peer} ${trusted ? 'trusted' : 'not trusted'}`)
  }
  t.equal(proxies.trusts(undefined), false, 'no address (a closed socket): not trusted')
})

t.test('unset: nobody is trusted', async (t) => {
  const proxies = proxyTrust(false)
  t.equal(proxies.configured, false)
  t.equal(proxies.trusts('127.0.0.1'), false)
})

t.test('an IPv4-mapped peer is shown as the IPv4 address an operator writes', async (t) => {
  t.equal(shownAddress('::ffff:10.0.0.5'), '10.0.0.5')
  t.equal(shownAddress('10.0.0.5'), '10.0.0.5')
  t.equal(shownAddress('fd00::5'), 'fd00::5')
})
