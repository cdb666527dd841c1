// One attempt on the wire (deliver(), against real node:http servers): a receiver that does not
// answer in time fails it, a redirect is not followed, the receiver's body is not read, and a
// connection is never made to a forbidden address, whatever the URL names.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import { deliver, type DeliveryPolicy } from '../../src/webhooks/delivery.ts'

async function serve(t: Test, handler: Parameters<typeof createServer>[1]) {
  const server: Server = createServer(handler)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => {
    server.closeAllConnections()
    return new Promise<void>((resolve) => server.close(() => resolve()))
  })
  let requests = 0
  server.on('request', () => requests++)
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, requests: () => requests }
}

const open: DeliveryPolicy = { allowPrivateNetworks: true, resolve: async () => ['127.0.0.1'], timeoutMs: 300 }

t.test('no answer within the timeout: failed, the request abandoned', async (t) => {
  const silent = await serve(t, () => undefined)
  const result = await deliver(silent.url, {}, '{}', open)
  t.match(result, { outcome: 'failed', responseStatus: null, error: 'no answer within 0.3 s' })
  t.equal(silent.requests(), 1)
})

t.test('a redirect is an answer, not followed', async (t) => {
  const target = await serve(t, (_, response) => response.end())
  const redirect = await serve(t, (_, response) => response.writeHead(307, { location: target.url }).end())
  const result = await deliver(redirect.url, {}, '{}', open)
  t.match(result, {
    outcome: 'failed',
    responseStatus: 307,
    error: 'the receiver answered 307 (redirects are not followed)',
  })
  t.equal(target.requests(), 0, 'the redirect target got nothing')
})

t.test('a 2xx with an endless body is delivered without reading it', async (t) => {
  const endless = await serve(t, (_, response) => {
    response.writeHead(200)
    const chunk = Buffer.alloc(64 * 1024, 97)
    const write = () => {
      while (response.write(chunk));
      response.once('drain', write)
    }
    write()
  })
  t.match(await deliver(endless.url, {}, '{}', open), { outcome: 'delivered', responseStatus: 200, error: null })
})

t.test('refused without a connection: a literal forbidden address, http, and a name resolving to one', async (t) => {
  const receiver = await serve(t, (_, response) => response.end())
  const port = new URL(receiver.url).port
  const closed: DeliveryPolicy = { allowPrivateNetworks: false, resolve: async () => ['127.0.0.1'], timeoutMs: 300 }
  t.match(await deliver(`https://127.0.0.1:${port}/`, {}, '{}', closed), {
    outcome: 'refused',
    error: '127.0.0.1 is in a refused address block: Loopback, RFC 1122',
  })
  t.match(await deliver(`https://[::ffff:7f00:1]:${port}/`, {}, '{}', closed), {
    outcome: 'refused',
    error: '::ffff:7f00:1 is in a refused address block: IPv4-mapped Address, RFC 4291',
  })
  t.match(await deliver(receiver.url, {}, '{}', closed), { outcome: 'refused', error: 'the URL is not https' })
  const mixed = { ...closed, resolve: async () => ['93.184.216.34', '10.1.1.1'] }
  t.match(await deliver(`https://hooks.example:${port}/`, {}, '{}', mixed), {
    outcome: 'refused',
    responseStatus: null,
    // The rule, not the address (10.1.1.1): the answer is shown to the admin.
    error: 'hooks.example resolves to an address in a refused block: Private-Use, RFC 1918',
  })
  t.equal(receiver.requests(), 0, 'no request reached the receiver')
})
