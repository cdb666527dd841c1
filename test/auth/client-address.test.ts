// Per-address limits count an IPv6 client by its /64 (one subscriber usually holds a whole /64,
// so each of its addresses must not be a new client) and an IPv4-mapped IPv6 address as IPv4.
import t from 'tap'
import { addressKey } from '../../src/auth/client-address.ts'
import { build } from '../helpers/build.ts'
import { uniqueEmail } from '../helpers/accounts.ts'

t.test('the key of an address', async (t) => {
  t.equal(addressKey('203.0.113.7'), '203.0.113.7', 'IPv4 as it is')
  t.equal(addressKey('::ffff:203.0.113.7'), '203.0.113.7', 'IPv4-mapped IPv6 as IPv4')
  t.equal(addressKey('::FFFF:cb00:7107'), '203.0.113.7', 'also written in hex')
  t.equal(addressKey('2001:db8:1:2::1'), '2001:db8:1:2::/64')
  t.equal(
    addressKey('2001:0DB8:0001:0002:ffff:ffff:ffff:ffff'),
    '2001:db8:1:2::/64',
    'every address of one /64 has one key',
  )
  t.equal(addressKey('2001:db8:1:2:aaaa:bbbb:1.2.3.4'), '2001:db8:1:2::/64', 'with a dotted tail')
  t.equal(addressKey('fe80::1%eth0'), 'fe80:0:0:0::/64', 'a zone is dropped')
  t.equal(addressKey('::1'), '0:0:0:0::/64')
  t.not(addressKey('2001:db8:1:3::1'), addressKey('2001:db8:1:2::1'), 'the next /64 is another client')
  t.equal(addressKey('not an address'), 'not an address', 'anything else is kept as it is')
})

t.test('over HTTP: addresses of one /64 share the login limit per address', async (t) => {
  const app = await build(t, { LOGIN_LIMIT_PER_ADDRESS: '2', LOGIN_LIMIT_PER_ACCOUNT: '1000' })
  const random = () => Math.floor(Math.random() * 0xffff).toString(16)
  // A /64 of this run's own: on PostgreSQL the counters outlive the test.
  const prefix = `2001:db8:${random()}:${random()}`
  const from = (remoteAddress: string) =>
    app.inject({
      method: 'POST',
      url: '/login',
      remoteAddress,
      payload: { email: uniqueEmail(), password: 'whatever password' },
    })
  t.equal((await from(`${prefix}::1`)).statusCode, 401)
  t.equal((await from(`${prefix}:1:2:3:4`)).statusCode, 401)
  t.equal(
    (await from(`${prefix}:ffff:ffff:ffff:ffff`)).statusCode,
    429,
    'a third address of the same /64 is over the limit of 2',
  )
  t.equal((await from(`2001:db8:${random()}:${random()}::1`)).statusCode, 401, 'another /64 is another client')

  const v4 = `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.33`
  t.equal((await from(v4)).statusCode, 401)
  t.equal((await from(`::ffff:${v4}`)).statusCode, 401)
  t.equal((await from(v4)).statusCode, 429, 'an IPv4 client counts once, however it is written')
})
