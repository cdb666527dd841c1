// A request whose head never completes is answered 408 REQUEST_TIMEOUT in the envelope once
// REQUEST_TIMEOUT_MS has passed (the spec's 30 s by default). Node looks for such requests only
// once per connectionsCheckingInterval, 30 s unless told: the 408 then came up to 30 s late (55 s
// was seen). Shown by state, not by a clock: the server checks at most a second apart (a tenth of a
// short timeout), bounds the head by the same time as the request, and a short timeout, set here,
// is what answers a real socket.
import { once } from 'node:events'
import { connect } from 'node:net'
import t from 'tap'
import { loadSpec } from '../../../src/spec.ts'
import { build } from '../../helpers/build.ts'

/** Node's own property, which its types do not declare: how often it looks for requests past their time. */
const checkingInterval = (server: object) =>
  (server as { connectionsCheckingInterval?: number }).connectionsCheckingInterval

t.test('the default: 30 s, checked each second, the head bounded alike', async (t) => {
  const app = await build(t)
  t.equal(app.server.requestTimeout, 30_000)
  t.equal(app.server.headersTimeout, 30_000)
  t.equal(checkingInterval(app.server), 1000, 'the 408 comes at most a second after the 30 s')
})

t.test('a head that never completes → 408 REQUEST_TIMEOUT in the envelope, on a raw socket', async (t) => {
  const app = await build(t, { REQUEST_TIMEOUT_MS: '300' })
  t.equal(checkingInterval(app.server), 30, 'checked at a tenth of a short timeout')
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as { port: number }
  const socket = connect(port, '127.0.0.1')
  const chunks: Buffer[] = []
  socket.on('data', (chunk: Buffer) => chunks.push(chunk))
  socket.on('error', () => {})
  await once(socket, 'connect')
  // The head's last line is never sent: the server waits for it until its time runs out.
  socket.write('GET /ping HTTP/1.1\r\nHost: x\r\n')
  await once(socket, 'close')
  const [head = '', body = ''] = Buffer.concat(chunks).toString('latin1').split('\r\n\r\n', 2)
  t.match(head, /^HTTP\/1\.1 408 /)
  t.match(head, /\r\nconnection: close(\r\n|$)/i)
  t.match(head, new RegExp(`\\r\\napi-version: ${loadSpec().info.version.replaceAll('.', '\\.')}\\r\\n`, 'i'))
  const parsed = JSON.parse(body) as { data: unknown; error: { code: string; details: unknown[] }; meta: object }
  t.equal(parsed.data, null)
  t.equal(parsed.error.code, 'REQUEST_TIMEOUT')
  t.same(parsed.error.details, [])
})
