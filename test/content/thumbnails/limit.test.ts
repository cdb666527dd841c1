// An upload over the size limit is cut off as soon as it crosses the limit: the answer comes while
// the client still holds most of the file, which it never sends. A server that read (or merely
// drained) the whole body before answering would never answer this client. The same holds for an
// upload refused before its body is read (401, 403, 404, 415), and for bytes outside the file part.
import http, { type ClientRequest, type IncomingMessage } from 'node:http'
import t, { type Test } from 'tap'
import { build } from '../../helpers/build.ts'
import { listenCountingBytes } from '../../helpers/raw-http.ts'
import { registerUser } from '../../helpers/accounts.ts'
import { createPost } from '../../helpers/posts.ts'

const LIMIT = 200_000
const FILE_SIZE = 5 * 1024 * 1024
/** What src/http/body/upload.ts allows around the file for the multipart framing. */
const FRAMING = 64 * 1024

function startUpload(port: number, path: string, headers: http.OutgoingHttpHeaders): ClientRequest {
  const request = http.request({ host: '127.0.0.1', port, method: 'PUT', path, headers })
  // The server closes the connection after its answer; the client's later errors are expected.
  request.on('error', () => {})
  return request
}

/**
 * The answer and its parsed body; when none comes within 20 s, a failed assertion saying what that
 * means (`silence`), the request dropped, and null.
 */
async function answer(
  t: Test,
  request: ClientRequest,
  silence: string,
): Promise<{ response: IncomingMessage; body: unknown } | null> {
  const response = await new Promise<IncomingMessage | null>((resolve) => {
    request.on('response', resolve)
    setTimeout(() => resolve(null), 20_000).unref()
  })
  if (response === null) {
    t.fail(`no answer within 20 s: ${silence}`)
    request.destroy()
    return null
  }
  let text = ''
  for await (const chunk of response) text += String(chunk)
  return { response, body: JSON.parse(text) }
}

/** Whether the connection is closed (by the server: the client never ends it) within 10 s. */
function closed(request: ClientRequest): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const socket = request.socket
    if (!socket || socket.destroyed) return resolve(true)
    socket.once('close', () => resolve(true))
    setTimeout(() => resolve(false), 10_000).unref()
  })
}

t.test('over the limit: 413 PAYLOAD_TOO_LARGE while the client is still sending', async (t) => {
  const app = await build(t, { UPLOAD_LIMIT_BYTES: String(LIMIT) })
  const author = await registerUser(app)
  const post = await createPost(app, author)
  const server = await listenCountingBytes(app)

  const head = Buffer.from(
    '--B\r\nContent-Disposition: form-data; name="file"; filename="big.jpg"\r\nContent-Type: image/jpeg\r\n\r\n',
  )
  const tail = Buffer.from('\r\n--B--\r\n')
  // Chunked, no Content-Length: a declared length this large would be refused before reading.
  const request = startUpload(server.port, `/posts/${post.id}/thumbnail`, {
    ...author.auth,
    'content-type': 'multipart/form-data; boundary=B',
  })
  // The header and 1.2 times the limit (within the bound on the whole body), then nothing until an answer comes.
  const sent = Math.round(LIMIT * 1.2)
  request.write(Buffer.concat([head, Buffer.alloc(sent, 0xab)]))
  const answered = await answer(t, request, 'the server waits for the rest of the file')
  if (answered === null) return
  t.equal(answered.response.statusCode, 413)
  t.match(answered.body, {
    data: null,
    error: { code: 'PAYLOAD_TOO_LARGE', message: `The file is larger than ${LIMIT} bytes.` },
  })
  t.equal(
    answered.response.headers.connection,
    'close',
    'the rest of the body is not drained: the connection is closed',
  )
  // Now offer the rest of the file: a server draining the body to keep the connection reads it all.
  request.end(Buffer.concat([Buffer.alloc(FILE_SIZE - sent, 0xab), tail]))
  t.ok(await closed(request), 'the server closed the connection')
  t.ok(server.bytesRead() < FILE_SIZE / 2, `the server read ${server.bytesRead()} of the ${FILE_SIZE} bytes offered`)
  request.destroy()

  const read = await app.inject({ method: 'GET', url: `/posts/${post.id}`, headers: author.auth })
  t.equal(read.json().data.thumbnail, null, 'nothing stored')
})

t.test('refused before the body is read: the connection is closed, the rest of the body is never read', async (t) => {
  const app = await build(t, { UPLOAD_LIMIT_BYTES: String(LIMIT) })
  const author = await registerUser(app)
  const stranger = await registerUser(app, 'stranger')
  // Published, so that another user sees it and gets 403 rather than 404.
  const post = await createPost(app, author, { status: 'published' })
  const { port } = await listenCountingBytes(app)
  // Declared far larger than the upload limit would allow, so that no size check answers first.
  const declared = 50 * 1024 * 1024

  const cases: [string, string, Record<string, string>, string, number][] = [
    ['anonymous', `/posts/${post.id}/thumbnail`, {}, 'multipart/form-data; boundary=B', 401],
    ['another user', `/posts/${post.id}/thumbnail`, stranger.auth, 'multipart/form-data; boundary=B', 403],
    [
      'an unknown post',
      '/posts/00000000-0000-4000-8000-000000000000/thumbnail',
      author.auth,
      'multipart/form-data; boundary=B',
      404,
    ],
    ['not multipart', `/posts/${post.id}/thumbnail`, author.auth, 'application/octet-stream', 415],
  ]
  for (const [who, path, auth, contentType, status] of cases) {
    const request = startUpload(port, path, { ...auth, 'content-type': contentType, 'content-length': declared })
    request.write(Buffer.alloc(100_000, 0xab))
    const answered = await answer(t, request, who)
    if (answered === null) continue
    t.equal(answered.response.statusCode, status, who)
    t.equal(answered.response.headers.connection, 'close', `${who}: Connection: close`)
    t.ok(await closed(request), `${who}: the server closed the connection after 100000 of ${declared} bytes`)
    request.destroy()
  }
})

t.test('bytes around the file part count too: 413 for a body larger than the limit and its framing', async (t) => {
  const app = await build(t, { UPLOAD_LIMIT_BYTES: String(LIMIT) })
  const author = await registerUser(app)
  const post = await createPost(app, author)
  const server = await listenCountingBytes(app)
  const bound = LIMIT + FRAMING
  const expectBodyTooLarge = (t: Test, answered: { response: IncomingMessage; body: unknown }) => {
    t.equal(answered.response.statusCode, 413)
    t.match(answered.body, {
      data: null,
      error: {
        code: 'PAYLOAD_TOO_LARGE',
        message: `The request body is larger than ${bound} bytes; the file may be at most ${LIMIT} bytes.`,
      },
    })
    t.equal(answered.response.headers.connection, 'close')
  }

  await t.test('a declared Content-Length past the bound: 413 before a byte is read', async (t) => {
    const request = startUpload(server.port, `/posts/${post.id}/thumbnail`, {
      ...author.auth,
      'content-type': 'multipart/form-data; boundary=B',
      'content-length': bound + 1,
    })
    request.flushHeaders()
    const answered = await answer(t, request, 'the server waits for the body')
    if (answered === null) return
    expectBodyTooLarge(t, answered)
    t.ok(await closed(request), 'the server closed the connection')
    request.destroy()
  })

  await t.test(
    'a chunked body whose preamble (before any boundary) outgrows the bound: 413 while still sending',
    async (t) => {
      const before = server.bytesRead()
      // No Content-Length: the body is sent chunked. Junk that busboy skips as the preamble.
      const request = startUpload(server.port, `/posts/${post.id}/thumbnail`, {
        ...author.auth,
        'content-type': 'multipart/form-data; boundary=B',
      })
      request.write(Buffer.alloc(bound + 50_000, 0x61))
      const answered = await answer(t, request, 'the server reads the preamble without limit')
      if (answered === null) return
      expectBodyTooLarge(t, answered)
      // Offer far more: the server must not read it.
      request.end(Buffer.alloc(FILE_SIZE, 0x61))
      t.ok(await closed(request), 'the server closed the connection')
      const read = server.bytesRead() - before
      t.ok(read < FILE_SIZE / 2, `the server read ${read} of the ${bound + 50_000 + FILE_SIZE} bytes offered`)
      request.destroy()
    },
  )

  const read = await app.inject({ method: 'GET', url: `/posts/${post.id}`, headers: author.auth })
  t.equal(read.json().data.thumbnail, null, 'nothing stored')
})
