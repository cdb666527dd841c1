// Code an instance may never need is loaded when it is first needed, not at start-up, so it takes
// no memory until then: the embedded database's (PGlite and its adapter, never on PostgreSQL), the
// AWS SDK's (only with S3_BUCKET set) and the image library's (sharp and libvips, with the first
// image). The Markdown renderer and the HTML sanitizer are never loaded by the thread that serves
// requests: they render on a worker thread, started with the first write
// (src/content/html/post-html.ts).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { register } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { crc32, deflateSync } from 'node:zlib'
import t from 'tap'
import { createScratchDatabase } from './helpers/postgres.ts'

// Registered before the app is imported (dynamically, below): static imports would be resolved
// before this line runs.
const directory = mkdtempSync(join(tmpdir(), 'resolve-log-'))
t.teardown(() => rmSync(directory, { recursive: true, force: true }))
const log = join(directory, 'resolved.txt')
register('./helpers/resolve-log-hook.mjs', import.meta.url, { data: { log } })
const resolved = () => readFileSync(log, 'utf8').split('\n')
const embeddedCode = () => resolved().filter((url) => /\/(@electric-sql\/pglite|pglite-prisma-adapter)\//.test(url))
const awsSdkCode = () => resolved().filter((url) => /\/@aws-sdk\//.test(url))
const imageCode = () => resolved().filter((url) => /\/(sharp|@img)\//.test(url))
const renderingCode = () =>
  resolved().filter((url) =>
    /\/(markdown-it|sanitize-html|htmlparser2|postcss)\/|\/content\/html\/markdown\.ts$/.test(url),
  )

/** A grey PNG, written by hand: the test's own helpers make images with sharp, which would load it here. */
function greyPng(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4)
    length.writeUInt32BE(data.length)
    const crc = Buffer.alloc(4)
    crc.writeUInt32BE(crc32(Buffer.concat([Buffer.from(type), data])))
    return Buffer.concat([length, Buffer.from(type), data, crc])
  }
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header.set([8, 0, 0, 0, 0], 8) // 8-bit greyscale, no interlace
  const rows = Buffer.alloc((width + 1) * height, 0x80)
  for (let row = 0; row < height; row++) rows[row * (width + 1)] = 0 // filter: none
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ])
}

t.test('an app on PostgreSQL starts and serves without loading PGlite; an embedded one loads it', async (t) => {
  const { build } = await import('./helpers/build.ts')
  const url = await createScratchDatabase(t, 'lazy_pglite')
  const app = await build(t, { DATABASE_URL: url })
  t.equal((await app.inject({ method: 'GET', url: '/posts?limit=1' })).statusCode, 200)
  t.ok(
    resolved().some((url) => url.endsWith('/src/db/database.ts')),
    'the hook saw the app being loaded',
  )
  t.same(embeddedCode(), [], 'neither @electric-sql/pglite nor pglite-prisma-adapter was loaded')

  // The same hook sees them when they are used: the check above cannot pass for want of seeing.
  const embedded = await build(t, { DATABASE_URL: '' })
  t.equal((await embedded.inject({ method: 'GET', url: '/posts?limit=1' })).statusCode, 200)
  t.not(embeddedCode().length, 0, 'the embedded database loaded them')
})

t.test('the AWS SDK is loaded with a bucket configured, not without one', async (t) => {
  const { build } = await import('./helpers/build.ts')
  const app = await build(t, { MEDIA_STORAGE: 'database', S3_BUCKET: '' })
  t.equal((await app.inject({ method: 'GET', url: '/health' })).statusCode, 200)
  t.same(awsSdkCode(), [], 'started without S3_BUCKET: no @aws-sdk module loaded')

  const { startS3 } = await import('./helpers/s3.ts')
  const s3 = await startS3()
  t.teardown(() => s3.close())
  const withBucket = await build(t, s3.env)
  t.equal((await withBucket.inject({ method: 'GET', url: '/health' })).statusCode, 200)
  t.not(awsSdkCode().length, 0, 'with S3_BUCKET set, the SDK is loaded')
})

t.test('sharp is loaded with the first image, not before', async (t) => {
  const { build } = await import('./helpers/build.ts')
  const { registerUser } = await import('./helpers/accounts.ts')
  const { createPost } = await import('./helpers/posts.ts')
  const app = await build(t)
  const author = await registerUser(app)
  const post = await createPost(app, author)
  t.equal((await app.inject({ method: 'GET', url: `/posts/${post.id}`, headers: author.auth })).statusCode, 200)
  t.same(imageCode(), [], 'started, signed up, wrote and read a post: sharp not loaded')

  // Imported only now: the helpers that make test images load sharp themselves.
  const { uploadThumbnail } = await import('./helpers/images.ts')
  const upload = await uploadThumbnail(app, post.id, author.auth, greyPng(400, 300), { contentType: 'image/png' })
  t.equal(upload.statusCode, 200, upload.body)
  t.not(imageCode().length, 0, 'the first image loaded it')
})

t.test('the Markdown renderer and the sanitizer stay off the thread that serves requests', async (t) => {
  const { build } = await import('./helpers/build.ts')
  const { registerUser } = await import('./helpers/accounts.ts')
  const { createPost } = await import('./helpers/posts.ts')
  const app = await build(t)
  const author = await registerUser(app)
  const post = await createPost(app, author, { body: 'Rendered *elsewhere*.' })
  t.equal(post.html, '<p>Rendered <em>elsewhere</em>.</p>\n', 'the post was rendered')
  t.same(renderingCode(), [], 'started, wrote and read a post: none of them loaded here')

  // The hook sees them when this thread loads them: the check above cannot pass for want of seeing.
  await import('../src/content/html/markdown.ts')
  t.not(renderingCode().length, 0, 'loaded here, they show')
})
