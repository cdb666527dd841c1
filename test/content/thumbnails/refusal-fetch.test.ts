// Early refusals of an upload reach Node's fetch (undici, what generated SDKs use) as answers.
// fetch sends the whole body before it reads the answer: a server that answers and closes at once
// makes it fail with EPIPE / "fetch failed". The server answers, then reads and discards a bounded
// amount of the body before it closes (lingering close), and no more than that bound.
import http from 'node:http'
import net from 'node:net'
import type { Socket } from 'node:net'
import t from 'tap'
import { build } from '../../helpers/build.ts'
import { listenCountingBytes } from '../../helpers/raw-http.ts'
import { registerUser } from '../../helpers/accounts.ts'
import { createPost } from '../../helpers/posts.ts'
import { eventually } from '../../helpers/images.ts'
import { fetchFromAnotherProcess, type FetchCase, type FetchResult } from '../../helpers/fetch-process.ts'

const LIMIT = 1024 * 1024

const statusOrError = (result: FetchResult) => (result.status === null ? result.error! : String(result.status))

t.test(
  '401, 403, 404 and 415 before the body is read: fetch receives every one, from 100 bytes to the limit',
  async (t) => {
    const app = await build(t, { UPLOAD_LIMIT_BYTES: String(LIMIT) })
    const author = await registerUser(app)
    const stranger = await registerUser(app, 'stranger')
    // Published, so that another user sees it and gets 403 rather than 404.
    const post = await createPost(app, author, { status: 'published' })
    const { base } = await listenCountingBytes(app)

    const sizes = [100, 20_000, 200_000, 600_000, LIMIT]
    const cases = [
      { who: 'anonymous', path: `/posts/${post.id}/thumbnail`, auth: {}, status: 401 },
      { who: 'another user', path: `/posts/${post.id}/thumbnail`, auth: stranger.auth, status: 403 },
      {
        who: 'an unknown post',
        path: '/posts/00000000-0000-4000-8000-000000000000/thumbnail',
        auth: author.auth,
        status: 404,
      },
      { who: 'not multipart', path: `/posts/${post.id}/thumbnail`, auth: author.auth, status: 415 },
    ]
    const requests: FetchCase[] = cases.flatMap(({ who, path, auth }) =>
      sizes.map((size) => ({
        url: `${base}${path}`,
        method: 'PUT',
        headers: auth,
        // As an SDK sends them: FormData (openapi-fetch), or a Blob of the wrong type.
        body:
          who === 'not multipart'
            ? { kind: 'blob' as const, size, type: 'application/octet-stream' }
            : { kind: 'form' as const, size },
      })),
    )
    const expected = cases.flatMap(({ who, status }) => sizes.map((size) => `${who}, ${size} bytes: ${status}`))
    const results = await fetchFromAnotherProcess(requests)
    const received = results.map((result, index) => `${expected[index]!.split(':')[0]}: ${statusOrError(result)}`)
    t.same(
      received,
      expected,
      `${received.filter((line, index) => line === expected[index]).length} of ${expected.length} answered`,
    )
  },
)

t.test('413 for a body over the limit reaches fetch, with Content-Length and chunked without it', async (t) => {
  const app = await build(t, { UPLOAD_LIMIT_BYTES: String(LIMIT) })
  const author = await registerUser(app)
  const post = await createPost(app, author)
  const { base } = await listenCountingBytes(app)
  const url = `${base}/posts/${post.id}/thumbnail`
  const size = LIMIT + 200_000
  const results = await fetchFromAnotherProcess([
    // FormData of a Blob has a known length: Content-Length past the limit and its framing, refused before a byte is read.
    { url, method: 'PUT', headers: author.auth, body: { kind: 'form', size } },
    // The same form as a stream: chunked, refused when the bytes read cross the bound.
    { url, method: 'PUT', headers: author.auth, body: { kind: 'chunked-form', size } },
  ])
  t.same(results.map(statusOrError), ['413', '413'], 'with Content-Length, and chunked')

  const read = await app.inject({ method: 'GET', url: `/posts/${post.id}`, headers: author.auth })
  t.equal(read.json().data.thumbnail, null, 'nothing stored')
})

t.test('an anonymous oversized body is read up to the drain bound, then the connection is closed', async (t) => {
  const drainBytes = 2 * LIMIT
  const app = await build(t, { UPLOAD_LIMIT_BYTES: String(LIMIT), LINGERING_CLOSE_BYTES: String(drainBytes) })
  const author = await registerUser(app)
  const post = await createPost(app, author, { status: 'published' })
  const server = await listenCountingBytes(app)
  const offered = 40 * 1024 * 1024

  // Chunked, no length: the server cannot tell in advance that the body is too large to drain.
  const request = http.request({
    host: '127.0.0.1',
    port: server.port,
    method: 'PUT',
    path: `/posts/${post.id}/thumbnail`,
    headers: { 'content-type': 'multipart/form-data; boundary=B' },
  })
  request.on('error', () => {})
  const status = new Promise<number>((resolve) =>
    request.on('response', (response) => {
      response.resume()
      resolve(response.statusCode!)
    }),
  )
  const closed = new Promise<void>((resolve) => request.on('socket', (socket) => socket.on('close', () => resolve())))
  let sent = 0
  const chunk = Buffer.alloc(64 * 1024, 0xab)
  // Sends as fast as the server reads, until it closes the connection or all is sent.
  await new Promise<void>((resolve) => {
    const pump = () => {
      while (sent < offered && !request.destroyed && !request.socket?.destroyed) {
        sent += chunk.length
        if (!request.write(chunk)) return void request.once('drain', pump)
      }
      resolve()
    }
    request.once('socket', (socket) => socket.once('close', resolve))
    pump()
  })
  await closed
  t.equal(await status, 401)
  const read = server.bytesRead()
  t.ok(
    read <= drainBytes + 256 * 1024,
    `the server read ${read} bytes: at most the drain bound (${drainBytes}) and what one read takes in`,
  )
  t.ok(sent < offered, `the connection was closed after ${sent} of ${offered} bytes were sent`)
  request.destroy()
})

t.test('a client that stops sending is not waited for: the connection is closed after the drain time', async (t) => {
  const app = await build(t, { UPLOAD_LIMIT_BYTES: String(LIMIT), LINGERING_CLOSE_MS: '200' })
  const author = await registerUser(app)
  const post = await createPost(app, author, { status: 'published' })
  const server = await listenCountingBytes(app)
  // Declared within the drain bound, so the server waits for it, but never sent whole.
  const request = http.request({
    host: '127.0.0.1',
    port: server.port,
    method: 'PUT',
    path: `/posts/${post.id}/thumbnail`,
    headers: { 'content-type': 'multipart/form-data; boundary=B', 'content-length': LIMIT },
  })
  request.on('error', () => {})
  const closed = new Promise<boolean>((resolve) => {
    request.on('socket', (socket) => socket.once('close', () => resolve(true)))
    setTimeout(() => resolve(false), 20_000).unref()
  })
  const status = new Promise<number>((resolve) =>
    request.on('response', (response) => {
      response.resume()
      resolve(response.statusCode!)
    }),
  )
  request.write(Buffer.alloc(100_000, 0xab))
  t.equal(await status, 401)
  t.ok(await closed, 'the server closed the connection with 100000 of its 1048576 bytes sent')
  request.destroy()
})

t.test(
  'at most LINGERING_CLOSE_MAX_SOCKETS connections drain at once: past it, a refusal closes its connection at once',
  async (t) => {
    // Drain time far longer than the test: a draining connection stays open until its body ends.
    const app = await build(t, {
      UPLOAD_LIMIT_BYTES: String(LIMIT),
      LINGERING_CLOSE_MAX_SOCKETS: '2',
      LINGERING_CLOSE_MS: '120000',
    })
    const author = await registerUser(app)
    const post = await createPost(app, author, { status: 'published' })
    // The server's side of each connection, in the order they came, and whether it is closed.
    const serverSides: { closed: boolean }[] = []
    app.server.on('connection', (socket: Socket) => {
      const side = { closed: false }
      serverSides.push(side)
      socket.once('close', () => (side.closed = true))
    })
    const { port } = await listenCountingBytes(app)
    const clients: net.Socket[] = []
    // Four anonymous uploads, one after another: each declares 100 000 bytes, sends 1 000 and waits.
    // The client keeps its side open after the server's FIN, as a client still sending does.
    for (let index = 0; index < 4; index++) {
      const client = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true })
      client.on('error', () => {})
      clients.push(client)
      const answer = new Promise<string>((resolve) =>
        client.once('data', (data) => resolve(String(data).split(' ')[1]!)),
      )
      client.write(
        `PUT /posts/${post.id}/thumbnail HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=B\r\nContent-Length: 100000\r\n\r\n`,
      )
      client.write(Buffer.alloc(1000, 0xab))
      t.equal(await answer, '401', `upload ${index + 1} answered`)
    }
    const closedNow = () => serverSides.map((side) => side.closed)
    t.ok(
      await eventually(async () => closedNow().filter(Boolean).length >= 2, 20_000, 20),
      'two connections closed by the server',
    )
    t.same(
      closedNow(),
      [false, false, true, true],
      'the first two drain (open until their bodies end), the last two were closed at once',
    )
    // The two draining ones end their bodies: the server closes them.
    for (const client of clients.slice(0, 2)) client.end(Buffer.alloc(99_000, 0xab))
    t.ok(await eventually(async () => closedNow().every(Boolean), 20_000, 20), 'all closed once their bodies ended')
    for (const client of clients) client.destroy()
  },
)
