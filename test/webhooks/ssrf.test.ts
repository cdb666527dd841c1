// SSRF: webhook URLs must be https and must not be, or resolve to, an address of the service's own
// networks or the cloud's metadata service: refused when the endpoint is saved, and again by the
// delivery's own connection (a name that turns private after the endpoint was saved).
import t, { type Test } from 'tap'
import { registerAdmin, registerUser } from '../helpers/accounts.ts'
import { build, usingPostgres } from '../helpers/build.ts'
import { eventually } from '../helpers/images.ts'
import { createScratchDatabase } from '../helpers/postgres.ts'
import { createPost } from '../helpers/posts.ts'
import { startReceiver } from '../helpers/webhook-receiver.ts'
import { createWebhook, deliveriesOf } from '../helpers/webhooks.ts'

/** One address of each forbidden class, IPv4-mapped IPv6 forms included, with the rule that refuses it. */
const FORBIDDEN: [string, string][] = [
  ['127.0.0.1', 'Loopback, RFC 1122'],
  ['::1', 'Loopback Address, RFC 4291'],
  ['10.0.0.1', 'Private-Use, RFC 1918'],
  ['172.16.0.1', 'Private-Use, RFC 1918'],
  ['192.168.0.1', 'Private-Use, RFC 1918'],
  ['fd00::1', 'Unique-Local, RFC 4193'],
  ['169.254.1.1', 'Link Local, RFC 3927'],
  ['fe80::1', 'Link-Local Unicast, RFC 4291'],
  ['169.254.169.254', 'Cloud metadata service'],
  ['fd00:ec2::254', 'Cloud metadata service'],
  ['0.0.0.0', '"This host on this network", RFC 1122'],
  ['::', 'Unspecified Address, RFC 4291'],
  ['100.64.0.1', 'Shared Address Space, RFC 6598'],
  ['224.0.0.1', 'Multicast, RFC 5771'],
  ['ff02::1', 'Multicast, RFC 4291'],
  ['::ffff:127.0.0.1', 'IPv4-mapped Address, RFC 4291'],
  ['::ffff:a9fe:a9fe', 'IPv4-mapped Address, RFC 4291'],
  ['192.88.99.1', 'Deprecated (6to4 Relay Anycast), RFC 7526'],
]
const PUBLIC = '93.184.216.34'

/** A resolver the test steers: each name maps to the addresses set for it. */
function steeredResolver() {
  const names = new Map<string, string[]>()
  const resolve = async (host: string) => {
    const addresses = names.get(host)
    if (addresses === undefined) throw new Error(`${host} does not resolve`)
    return addresses
  }
  return { names, resolve }
}

async function app(t: Test, label: string, resolve: (host: string) => Promise<string[]>, env = {}) {
  const database: Record<string, string> = usingPostgres ? { DATABASE_URL: await createScratchDatabase(t, label) } : {}
  return build(t, { ...database, ...env }, { webhooks: { resolve }, jobs: { pollingIntervalSeconds: 0.5 } })
}

t.test('refused at creation: each forbidden class, as a literal and as a name resolving to it', async (t) => {
  const { names, resolve } = steeredResolver()
  const server = await app(t, 'webhook_ssrf_create', resolve)
  const admin = await registerAdmin(server)
  const create = (url: string) =>
    server.inject({ method: 'POST', url: '/webhooks', headers: admin.auth, payload: { url, events: ['post.updated'] } })
  const refusal = async (url: string, message: string) => {
    const answer = await create(url)
    t.equal(answer.statusCode, 400, url)
    t.same(
      answer.json().error,
      {
        code: 'WEBHOOK_URL_FORBIDDEN',
        message: 'Webhooks are delivered only to https URLs on public addresses.',
        details: [{ path: '/body/url', message }],
      },
      `${url}: ${message}`,
    )
  }
  for (const [index, [address, reason]] of FORBIDDEN.entries()) {
    const literal = address.includes(':') ? `[${address}]` : address
    await refusal(`https://${literal}/hook`, `is in a refused address block: ${reason}`)
    // The answer names the rule, never the address the name resolved to.
    names.set(`n${index}.example`, [PUBLIC, address])
    await refusal(`https://n${index}.example/hook`, `resolves to an address in a refused block: ${reason}`)
  }
  await refusal('http://hooks.example/hook', 'must start with https://')
  await refusal('https://user:pw@hooks.example/hook', 'must not carry credentials')
  await refusal('https://hooks.example/hook#part', 'must not carry a fragment')
  await refusal('https://nowhere.example/hook', 'names a host that does not resolve (nowhere.example)')
  await refusal('https://localhost/hook', 'names a host that does not resolve (localhost)')
  names.set('public.example', [PUBLIC, '2606:4700::1111'])
  t.equal((await create('https://public.example/hook')).statusCode, 201, 'a public name is accepted')
  t.equal((await create(`https://${PUBLIC}/hook`)).statusCode, 201, 'a public address is accepted')
  const count = await server.services.database.prisma.webhookEndpoint.count()
  t.equal(count, 2, 'no refused endpoint was saved')
})

t.test('WEBHOOK_ALLOW_PRIVATE_NETWORKS=true accepts http and loopback (tests, intranets)', async (t) => {
  const server = await app(t, 'webhook_ssrf_allow', steeredResolver().resolve, {
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  })
  const admin = await registerAdmin(server)
  const hook = await createWebhook(server, admin, { url: 'http://127.0.0.1:9/hook', events: ['post.updated'] })
  t.equal(hook.url, 'http://127.0.0.1:9/hook')
})

t.test('refused at delivery: a name that resolves to a forbidden address after the endpoint was saved', async (t) => {
  const { names, resolve } = steeredResolver()
  const server = await app(t, 'webhook_ssrf_deliver', resolve)
  const admin = await registerAdmin(server)
  const hooks = []
  for (const [index] of FORBIDDEN.entries()) {
    names.set(`d${index}.example`, [PUBLIC])
    hooks.push(
      await createWebhook(server, admin, { url: `https://d${index}.example/hook`, events: ['post.published'] }),
    )
  }
  // DNS changes: each name now leads to one forbidden class.
  for (const [index, [address]] of FORBIDDEN.entries()) names.set(`d${index}.example`, [address])
  await createPost(server, await registerUser(server), { status: 'published' })
  for (const [index, hook] of hooks.entries()) {
    const [address, reason] = FORBIDDEN[index]!
    let first: { outcome: string; responseStatus: number | null; error: string | null } | undefined
    t.ok(
      await eventually(async () => (first = (await deliveriesOf(server, admin, hook.id)).data.at(-1)) !== undefined),
      `an attempt to d${index}.example was recorded`,
    )
    t.same(
      { outcome: first?.outcome, responseStatus: first?.responseStatus, error: first?.error },
      {
        outcome: 'refused',
        responseStatus: null,
        error: `d${index}.example resolves to an address in a refused block: ${reason}`,
      },
      `${address}: refused at delivery`,
    )
  }
})

t.test('the connection uses the addresses that were checked: a name only the injected resolver knows', async (t) => {
  const { names, resolve } = steeredResolver()
  const server = await app(t, 'webhook_ssrf_connect', resolve, { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' })
  const receiver = await startReceiver(t)
  names.set('receiver.invalid', ['127.0.0.1'])
  const admin = await registerAdmin(server)
  await createWebhook(server, admin, {
    url: `http://receiver.invalid:${receiver.port}/hook`,
    events: ['post.published'],
  })
  await createPost(server, await registerUser(server), { status: 'published' })
  t.ok(await eventually(async () => receiver.received.length === 1), 'delivered to the address the resolver gave')
  t.equal(receiver.received[0]!.headers.host, `receiver.invalid:${receiver.port}`, 'under the name of the URL')
})
