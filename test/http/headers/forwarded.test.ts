// Forwarding headers and the peer that sends them (src/http/headers/forwarded.ts, request-id.ts):
// X-Forwarded-For from a peer TRUST_PROXY does not name is logged once per peer with the fix, and
// ignored; through a named proxy it names the client the limits count; Forwarded or X-Real-IP
// without X-Forwarded-For is logged too; a caller's X-Request-Id is kept from anyone when no proxy
// is named, and only through the named ones when one is. Real connections from distinct loopback
// addresses (test/helpers/from-address.ts), so the peer is the one the server sees.
import type { AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import { uniqueEmail } from '../../helpers/accounts.ts'
import { build } from '../../helpers/build.ts'
import { fetchFrom } from '../../helpers/from-address.ts'

interface Warning {
  level: number
  msg: string
  peer: string
  header: string
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

const byte = () => 1 + Math.floor(Math.random() * 250)
/** Addresses of their own per run: on PostgreSQL the login counters outlive the test. */
const unusedAddresses = (count: number, prefix: string) => {
  const made = new Set<string>()
  while (made.size < count) made.add(`${prefix}.${byte()}.${byte()}.${byte()}`)
  return [...made]
}

/** The app with these settings on a real port, and its log lines. */
async function serve(t: Test, env: Record<string, string>) {
  const lines: Record<string, unknown>[] = []
  const app = await build(
    t,
    { LOG_LEVEL: 'warn', LOGIN_LIMIT_PER_ADDRESS: '1', LOGIN_LIMIT_PER_ACCOUNT: '1000', ...env },
    { logDestination: { write: (line) => void lines.push(JSON.parse(line)) } },
  )
  await app.listen({ port: 0, host: '127.0.0.1' })
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  /** GET /ping from `peer` with these headers; answers the request id the service gave it. */
  const ping = async (peer: string, headers: Record<string, string> = {}) => {
    const response = await app.contractFetch(fetchFrom(peer))(`${base}/ping`, { headers })
    const id = ((await response.json()) as { meta: { requestId: string } }).meta.requestId
    if (response.status !== 200 || response.headers.get('x-request-id') !== id)
      throw new Error(`ping answered ${response.status}, ids ${id} and ${response.headers.get('x-request-id')}`)
    return id
  }
  /** A failed login from `peer` with this X-Forwarded-For; answers its status (429 once the address is spent). */
  const login = async (peer: string, forwardedFor: string) => {
    const response = await app.contractFetch(fetchFrom(peer))(`${base}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': forwardedFor },
      body: JSON.stringify({ email: uniqueEmail(), password: 'a wrong password' }),
    })
    return response.status
  }
  /** The forwarding warnings logged so far. */
  const warnings = () => lines.filter((line): line is Warning & Record<string, unknown> => 'header' in line)
  return { ping, login, warnings }
}

// Two apps for the whole file (building one takes seconds): each test uses peers of its own, as
// a peer is warned of once.
const [proxy, stranger, other] = unusedAddresses(3, '127')
const unset = await serve(t, {})
const named = await serve(t, { TRUST_PROXY: `192.0.2.0/24,${proxy}/32` })

t.test('TRUST_PROXY unset: X-Forwarded-For is logged once per peer, naming it and TRUST_PROXY', async (t) => {
  const { ping, warnings } = unset
  await ping('127.0.0.1')
  t.same(warnings(), [], 'no header, no warning')
  await ping('127.0.0.1', { 'x-forwarded-for': '203.0.113.7' })
  t.equal(warnings().length, 1, 'one warning')
  const [first] = warnings()
  t.match(first, { level: 40, peer: '127.0.0.1', header: 'X-Forwarded-For' })
  t.equal(
    first!.msg,
    'X-Forwarded-For from 127.0.0.1, while TRUST_PROXY is unset: the address limits count 127.0.0.1, not the ' +
      'client it names; if 127.0.0.1 is your proxy, add it to TRUST_PROXY, otherwise the header is ignored',
  )
  await ping('127.0.0.1', { 'x-forwarded-for': '203.0.113.8' })
  t.equal(warnings().length, 1, 'the same peer again: no second warning')
  await ping('127.0.0.2', { 'x-forwarded-for': '203.0.113.9' })
  t.equal(warnings().length, 2, 'another peer has its own')
  t.match(warnings()[1], { peer: '127.0.0.2', msg: /^X-Forwarded-For from 127\.0\.0\.2, while TRUST_PROXY is unset/ })
})

t.test('TRUST_PROXY names the proxy: its X-Forwarded-For names the client, any other peer is logged', async (t) => {
  const { login, warnings } = named
  const [one, two, three, four] = unusedAddresses(4, '10')
  t.equal(await login(proxy!, one!), 401, 'through the proxy, a first client')
  t.equal(await login(proxy!, two!), 401, 'a second client has an allowance of its own')
  t.equal(await login(proxy!, one!), 429, 'the first client has spent its own (LOGIN_LIMIT_PER_ADDRESS=1)')
  t.same(warnings(), [], 'no warning of the named proxy')
  t.equal(await login(stranger!, three!), 401)
  t.equal(await login(stranger!, four!), 429, 'from another peer the header is ignored: the peer counts')
  t.equal(warnings().length, 1, 'one warning for both requests')
  t.match(warnings()[0], {
    level: 40,
    peer: stranger,
    header: 'X-Forwarded-For',
    msg:
      `X-Forwarded-For from ${stranger}, which TRUST_PROXY does not name: the address limits count ${stranger}, ` +
      `not the client it names; if ${stranger} is your proxy, add it to TRUST_PROXY, otherwise the header is ignored`,
  })
})

t.test('X-Real-IP or Forwarded without X-Forwarded-For is logged: the address is read from it only', async (t) => {
  const before = { unset: unset.warnings().length, named: named.warnings().length }
  await named.ping(proxy!, { 'x-forwarded-for': '203.0.113.7', 'x-real-ip': '203.0.113.7' })
  t.equal(named.warnings().length, before.named, 'beside X-Forwarded-For from the named proxy: nothing to say')
  await unset.ping('127.0.0.3', { 'x-real-ip': '203.0.113.7' })
  t.match(unset.warnings().slice(before.unset), [
    {
      peer: '127.0.0.3',
      header: 'X-Real-IP',
      msg:
        "X-Real-IP without X-Forwarded-For from 127.0.0.3: the service reads a client's address from " +
        'X-Forwarded-For only, so the address limits count 127.0.0.3; if 127.0.0.3 is your proxy, have it send ' +
        'X-Forwarded-For and name it in TRUST_PROXY',
    },
  ])
  await named.ping(proxy!, { forwarded: 'for=203.0.113.7' })
  t.match(
    named.warnings().slice(before.named),
    [
      {
        peer: proxy,
        header: 'Forwarded',
        msg: new RegExp(`if ${proxy!.replaceAll('.', '\\.')} is your proxy, have it send X-Forwarded-For$`),
      },
    ],
    'from the named proxy too, without asking to name it',
  )
})

t.test('X-Request-Id: kept from anyone when no proxy is named', async (t) => {
  const { ping } = unset
  t.equal(await ping('127.0.0.1', { 'x-request-id': 'from-one' }), 'from-one')
  t.equal(await ping('127.0.0.4', { 'x-request-id': 'from-four' }), 'from-four')
  t.match(await ping('127.0.0.4', { 'x-request-id': 'not sane' }), UUID, 'an insane id is replaced, as ever')
})

t.test('X-Request-Id: kept through the named proxy only when one is named', async (t) => {
  const { ping } = named
  t.equal(await ping(proxy!, { 'x-request-id': 'via-the-proxy' }), 'via-the-proxy', 'through the proxy: kept')
  const replaced = await ping(other!, { 'x-request-id': 'past-the-proxy' })
  t.match(replaced, UUID, 'straight from another peer: a fresh one')
  t.not(await ping(other!, { 'x-request-id': 'past-the-proxy' }), replaced, 'fresh each time')
  t.match(await ping(proxy!, { 'x-request-id': 'a/b' }), UUID, 'an insane id is replaced, even through the proxy')
})
