// An upload over the size limit is cut off as soon as it crosses the limit: the answer comes while
// the client still holds most of the file, which it never sends. A server that read (or merely
// drained) the whole body before answering would never answer this client.
import http, { type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { build } from '../helpers/build.ts'
import { registerUser } from '../helpers/accounts.ts'
import { createPost } from '../helpers/posts.ts'

const LIMIT = 200_000
const FILE_SIZE = 5 * 1024 * 1024

t.test('over the limit: 413 PAYLOAD_TOO_LARGE while the client is still sending', async (t) => {
  const app = await build(t, { UPLOAD_LIMIT_BYTES: String(LIMIT) })
  const author = await registerUser(app)
  const post = await createPost(app, author)
  await app.listen({ host: '127.0.0.1', port: 0 })
  const { port } = app.server.address() as AddressInfo

  const head = Buffer.from('--B\r\nContent-Disposition: form-data; name="file"; filename="big.jpg"\r\nContent-Type: image/jpeg\r\n\r\n')
  const tail = Buffer.from('\r\n--B--\r\n')
  const request = http.request({
    host: '127.0.0.1',
    port,
    method: 'PUT',
    path: `/posts/${post.id}/thumbnail`,
    headers: { ...author.auth, 'content-type': 'multipart/form-data; boundary=B', 'content-length': head.length + FILE_SIZE + tail.length },
  })
  // The server closes the connection after its answer; the client's later errors are expected.
  request.on('error', () => {})
  // The header and 1.5 times the limit, then nothing until an answer comes.
  const sent = Math.round(LIMIT * 1.5)
  request.write(Buffer.concat([head, Buffer.alloc(sent, 0xab)]))
  const response = await new Promise<IncomingMessage | null>((resolve) => {
    request.on('response', resolve)
    setTimeout(() => resolve(null), 20_000).unref()
  })
  if (response === null) {
    t.fail('no answer within 20 s: the server waits for the rest of the file')
    request.destroy()
    return
  }
  let body = ''
  for await (const chunk of response) body += String(chunk)
  t.equal(response.statusCode, 413)
  t.match(JSON.parse(body), { data: null, error: { code: 'PAYLOAD_TOO_LARGE', message: `The file is larger than ${LIMIT} bytes.` } })
  t.equal(response.headers.connection, 'close', 'the rest of the body is not drained: the connection is closed')
  t.ok(sent < FILE_SIZE / 10, `answered after ${sent} of ${FILE_SIZE} bytes were sent`)
  const closed = await new Promise<boolean>((resolve) => {
    const socket = request.socket
    if (!socket || socket.destroyed) return resolve(true)
    socket.once('close', () => resolve(true))
    setTimeout(() => resolve(false), 10_000).unref()
  })
  t.ok(closed, 'the server closed the connection')
  request.destroy()

  const read = await app.inject({ method: 'GET', url: `/posts/${post.id}`, headers: author.auth })
  t.equal(read.json().data.thumbnail, null, 'nothing stored')
})
