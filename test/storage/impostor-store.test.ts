// An object store that answers, but not as a store: a 200 with somebody else's page (a proxy, a
// captive portal) to every request, and a store that stops sending an object's body half-way. An
// upload must not believe the first (no row may point at an object that was never stored), a read
// must not serve its page under an immutable URL, and a stalled body must end rather than hold the
// reader's connection for as long as the client waits.
import { once } from 'node:events'
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { randomBytes } from 'node:crypto'
import t from 'tap'
import { build } from '../helpers/build.ts'
import { registerUser } from '../helpers/accounts.ts'
import { createPost } from '../helpers/posts.ts'
import { solidImage, uploadThumbnail } from '../helpers/images.ts'
import { putAnswerProblem } from '../../src/storage/s3-driver.ts'

const TIMEOUT_MS = 500
const PAGE = '<html>not s3 at all</html>'

type Mode = 'page' | 'stall'

/** Answers every request with PAGE (200, text/html, no ETag), or for a GET sends 100 bytes of a declared 50 000 and stalls. */
async function impostor() {
  let mode: Mode = 'page'
  const requests: string[] = []
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    requests.push(`${request.method} ${request.url}`)
    request.resume()
    if (mode === 'stall' && request.method === 'GET') {
      response.writeHead(200, { 'content-type': 'image/webp', 'content-length': '50000' })
      response.write(Buffer.alloc(100))
      return // and nothing more
    }
    response.writeHead(200, { 'content-type': 'text/html', 'content-length': String(PAGE.length) })
    response.end(PAGE)
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    set: (next: Mode) => void (mode = next),
    close: () => {
      server.closeAllConnections()
      server.close()
    },
  }
}

const s3Env = (endpoint: string) => ({
  MEDIA_STORAGE: 's3',
  S3_ENDPOINT: endpoint,
  S3_REGION: 'us-east-1',
  S3_BUCKET: 'blog-test',
  S3_FORCE_PATH_STYLE: 'true',
  STORAGE_TIMEOUT_MS: String(TIMEOUT_MS),
  AWS_ACCESS_KEY_ID: 'impostor',
  AWS_SECRET_ACCESS_KEY: 'impostor',
})

t.test('a PutObject answer is believed only with an ETag that is, or could be, the MD5 of the bytes', async (t) => {
  const md5 = 'e2fc714c4727ee9395f324cd2e7f331f'
  t.equal(putAnswerProblem(`"${md5}"`, md5), null, 'the MD5, quoted as S3 sends it')
  t.equal(putAnswerProblem('"0123456789abcdef0123456789abcdef-1"', md5), null, 'another form (SSE-KMS) is taken')
  t.match(putAnswerProblem(undefined, md5), /no ETag/, 'none: not a store')
  t.match(putAnswerProblem('"0123456789abcdef0123456789abcdef"', md5), /not the MD5/, 'another MD5: other bytes')
})

t.test("an upload to a store answering somebody else's page is refused and keeps no row", async (t) => {
  const store = await impostor()
  t.teardown(store.close)
  const app = await build(t, s3Env(store.endpoint))
  const author = await registerUser(app)
  const post = await createPost(app, author)
  const before = await app.services.database.prisma.image.count()
  const image = await solidImage(500, 400, 'png', `#${randomBytes(3).toString('hex')}`)
  const refused = await uploadThumbnail(app, post.id, author.auth, image)
  t.equal(refused.statusCode, 503, 'the upload is answered 503')
  t.ok(Number(refused.headers['retry-after']) > 0, 'with Retry-After')
  t.ok(
    store.requests.some((line) => line.startsWith('PUT ')),
    'the bytes were sent to the store, which answered 200',
  )
  t.equal(await app.services.database.prisma.image.count(), before, 'no images row was kept')
})

t.test('a read of an object whose answer is not its bytes: 503, not a page under an immutable URL', async (t) => {
  const store = await impostor()
  t.teardown(store.close)
  const app = await build(t, s3Env(store.endpoint))
  const key = `${randomBytes(32).toString('hex')}.webp`
  await app.services.database.prisma.image.create({
    data: { key, contentType: 'image/webp', width: 10, height: 10, byteSize: 50_000, data: null, location: 's3' },
  })
  t.teardown(() => app.services.database.prisma.image.delete({ where: { key } }))

  const page = await app.inject({ method: 'GET', url: `/images/${key}` })
  t.equal(page.statusCode, 503, "the store's 200 of another length is not served")
  t.not(page.headers['cache-control'], 'public, max-age=31536000, immutable', 'and nothing is cached for a year')

  // A body that stops: the answer has begun (200, its length), and is cut rather than left open.
  store.set('stall')
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as AddressInfo
  const received = await new Promise<{ status: number; bytes: number; cut: boolean }>((resolve) => {
    httpRequest({ host: '127.0.0.1', port, path: `/images/${key}` }, (response) => {
      let bytes = 0
      response.on('data', (chunk: Buffer) => (bytes += chunk.length))
      response.on('end', () => resolve({ status: response.statusCode!, bytes, cut: false }))
      response.on('error', () => resolve({ status: response.statusCode!, bytes, cut: true }))
      response.on('aborted', () => resolve({ status: response.statusCode!, bytes, cut: true }))
    }).end()
  })
  t.equal(received.status, 200, 'the answer had begun')
  t.ok(received.cut && received.bytes < 50_000, `and was cut after ${received.bytes} of 50 000 bytes, not left open`)
})
