// Thumbnails over HTTP: uploads checked by their bytes, re-encoded without metadata at the
// promised widths, served with immutable caching, and refused with the right code otherwise.
import { createHash } from 'node:crypto'
import t from 'tap'
import sharp from 'sharp'
import { build } from '../../helpers/build.ts'
import { registerUser } from '../../helpers/accounts.ts'
import { createPost } from '../../helpers/posts.ts'
import { hasGpsIfd, jpegWithGps, pngClaiming, solidImage, uploadThumbnail } from '../../helpers/images.ts'

t.test('a JPEG with EXIF GPS data comes back oriented, in every width, as WebP without any metadata', async (t) => {
  const app = await build(t)
  const author = await registerUser(app)
  const post = await createPost(app, author, { status: 'published' })
  const before = await app.inject({ method: 'GET', url: `/posts/${post.id}` })

  // 2000×1400 pixels, EXIF orientation 6: shown as 1400×2000 (portrait).
  const jpeg = await jpegWithGps(2000, 1400)
  const source = await sharp(jpeg).metadata()
  t.ok(hasGpsIfd(source.exif), 'the upload carries GPS data')
  t.equal(source.orientation, 6)

  const response = await uploadThumbnail(app, post.id, author.auth, jpeg)
  t.equal(response.statusCode, 200)
  const { data } = response.json()
  t.equal(data.id, post.id)
  const sizes = data.thumbnail.sizes as { width: number; height: number; url: string; contentType: string }[]
  t.same(
    sizes.map((size) => size.width),
    [320, 640, 1280],
    'every width, the original being wider than all',
  )
  t.same(
    sizes.map((size) => size.height),
    [457, 914, 1829],
    'the orientation applied: portrait, aspect kept',
  )
  for (const size of sizes) {
    t.equal(size.contentType, 'image/webp')
    t.match(size.url, /^\/images\/[a-f0-9]{64}\.webp$/)
    const image = await app.inject({ method: 'GET', url: size.url })
    t.equal(image.statusCode, 200, size.url)
    t.equal(image.headers['content-type'], 'image/webp')
    t.equal(image.headers['cache-control'], 'public, max-age=31536000, immutable')
    t.equal(image.headers['x-content-type-options'], 'nosniff')
    t.equal(image.headers.etag, `"${size.url.slice('/images/'.length)}"`, 'a strong ETag: the content-addressed key')
    const served = image.rawPayload
    t.equal(
      `/images/${createHash('sha256').update(served).digest('hex')}.webp`,
      size.url,
      'the key is the SHA-256 of the bytes',
    )
    const metadata = await sharp(served).metadata()
    t.match(metadata, { format: 'webp', width: size.width, height: size.height })
    t.equal(metadata.exif, undefined, 'no EXIF, so no GPS')
    t.equal(metadata.xmp, undefined, 'no XMP')
    t.equal(metadata.icc, undefined, 'no ICC profile')
    t.notOk(metadata.orientation, 'no orientation left to apply')

    const revalidated = await app.inject({
      method: 'GET',
      url: size.url,
      headers: { 'if-none-match': image.headers.etag as string },
    })
    t.equal(revalidated.statusCode, 304)
    t.equal(revalidated.body, '')
    t.equal(revalidated.headers.etag, image.headers.etag)
    t.equal(revalidated.headers['cache-control'], 'public, max-age=31536000, immutable')
    const weak = await app.inject({
      method: 'GET',
      url: size.url,
      headers: { 'if-none-match': `"other", W/${image.headers.etag}` },
    })
    t.equal(weak.statusCode, 304, 'If-None-Match compares weakly')
    t.equal(
      (await app.inject({ method: 'GET', url: size.url, headers: { 'if-none-match': '"other"' } })).statusCode,
      200,
    )
  }

  const read = await app.inject({ method: 'GET', url: `/posts/${post.id}` })
  t.same(read.json().data.thumbnail, data.thumbnail, 'the post shows its thumbnail')
  t.equal(read.headers.etag, response.headers.etag, 'the upload answers with the post’s new ETag')
  t.not(read.headers.etag, before.headers.etag, 'the post’s ETag changed with its thumbnail')
})

t.test('every accepted format; never upscaled, so narrow images give fewer widths', async (t) => {
  const app = await build(t)
  const author = await registerUser(app)
  const post = await createPost(app, author)
  const cases = [
    { format: 'png', width: 200, height: 100, widths: [200] },
    { format: 'gif', width: 700, height: 350, widths: [320, 640] },
    { format: 'webp', width: 320, height: 160, widths: [320] },
    { format: 'avif', width: 1300, height: 650, widths: [320, 640, 1280] },
    { format: 'jpeg', width: 640, height: 480, widths: [320, 640] },
  ] as const
  for (const { format, width, height, widths } of cases) {
    const response = await uploadThumbnail(app, post.id, author.auth, await solidImage(width, height, format))
    t.equal(response.statusCode, 200, format)
    const sizes = response.json().data.thumbnail.sizes as { width: number; height: number; contentType: string }[]
    t.same(
      sizes.map((size) => size.width),
      widths,
      `${format} ${width}×${height}`,
    )
    t.same(
      sizes.map((size) => size.height),
      widths.map((w) => Math.round((w * height) / width)),
    )
    t.ok(sizes.every((size) => size.contentType === 'image/webp'))
  }
})

t.test('the format is decided by the bytes, never by the name or the declared type', async (t) => {
  const app = await build(t)
  const author = await registerUser(app)
  const post = await createPost(app, author)
  const refused = async (
    name: string,
    bytes: Buffer | string,
    file: { filename: string; contentType: string },
    status: number,
    code: string,
  ) => {
    const response = await uploadThumbnail(app, post.id, author.auth, bytes, file)
    t.equal(response.statusCode, status, name)
    t.match(response.json(), { data: null, error: { code, details: [{ path: '/body/file' }] } }, name)
  }
  await refused(
    'a text file named .png sent as image/png',
    'just some text, not an image\n',
    { filename: 'photo.png', contentType: 'image/png' },
    415,
    'IMAGE_UNSUPPORTED_TYPE',
  )
  const svg =
    '<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"><script>alert(1)</script><rect width="100" height="100"/></svg>'
  await refused('an SVG', svg, { filename: 'logo.svg', contentType: 'image/svg+xml' }, 415, 'IMAGE_UNSUPPORTED_TYPE')
  await refused(
    'an SVG named .png',
    svg,
    { filename: 'logo.png', contentType: 'image/png' },
    415,
    'IMAGE_UNSUPPORTED_TYPE',
  )
  await refused(
    'a TIFF, which sharp could decode',
    await solidImage(50, 50, 'tiff'),
    { filename: 'scan.jpg', contentType: 'image/jpeg' },
    415,
    'IMAGE_UNSUPPORTED_TYPE',
  )
  const png = await solidImage(50, 50, 'png')
  await refused(
    'a PNG signature over garbage',
    Buffer.concat([png.subarray(0, 8), Buffer.alloc(200, 7)]),
    { filename: 'a.png', contentType: 'image/png' },
    422,
    'IMAGE_INVALID',
  )
  await refused(
    'a truncated PNG',
    png.subarray(0, png.length - 30),
    { filename: 'a.png', contentType: 'image/png' },
    422,
    'IMAGE_INVALID',
  )
  t.equal(
    (await app.inject({ method: 'GET', url: `/posts/${post.id}`, headers: author.auth })).json().data.thumbnail,
    null,
    'nothing was stored',
  )

  const disguised = await uploadThumbnail(app, post.id, author.auth, png, {
    filename: 'notes.txt',
    contentType: 'text/plain',
  })
  t.equal(disguised.statusCode, 200, 'a real PNG is accepted whatever its name and declared type')
})

t.test('IMAGE_FORMATS narrows the accepted formats: with png only, a JPEG is 415', async (t) => {
  const app = await build(t, { IMAGE_FORMATS: 'png' })
  const author = await registerUser(app)
  const post = await createPost(app, author)
  const jpeg = await uploadThumbnail(app, post.id, author.auth, await solidImage(50, 50, 'jpeg'))
  t.equal(jpeg.statusCode, 415)
  const message = 'The file is not a PNG image.'
  t.match(jpeg.json(), {
    data: null,
    error: { code: 'IMAGE_UNSUPPORTED_TYPE', message, details: [{ path: '/body/file', message }] },
  })
  const svg = await uploadThumbnail(app, post.id, author.auth, '<svg xmlns="http://www.w3.org/2000/svg"/>', {
    filename: 'a.svg',
    contentType: 'image/svg+xml',
  })
  t.match(
    svg.json(),
    { error: { code: 'IMAGE_UNSUPPORTED_TYPE', message } },
    'an unknown format: the message names what is accepted',
  )
  t.equal(
    (await app.inject({ method: 'GET', url: `/posts/${post.id}`, headers: author.auth })).json().data.thumbnail,
    null,
    'nothing was stored',
  )
  const png = await uploadThumbnail(app, post.id, author.auth, await solidImage(50, 50, 'png'), {
    filename: 'a.png',
    contentType: 'image/png',
  })
  t.equal(png.statusCode, 200, 'a PNG is accepted')
})

t.test('an image of enormous dimensions in a tiny file is refused before it is decoded', async (t) => {
  const app = await build(t)
  const author = await registerUser(app)
  const post = await createPost(app, author)
  const bomb = await pngClaiming(20_000, 20_000)
  t.ok(bomb.length < 100, `${bomb.length} bytes claiming 400 megapixels`)
  const response = await uploadThumbnail(app, post.id, author.auth, bomb, {
    filename: 'a.png',
    contentType: 'image/png',
  })
  t.equal(response.statusCode, 422)
  t.match(response.json().error, {
    code: 'IMAGE_TOO_MANY_PIXELS',
    message: /400000000 pixels; at most 40000000/,
    details: [{ path: '/body/file' }],
  })

  const strict = await build(t, { IMAGE_MAX_PIXELS: '10000' })
  const owner = await registerUser(strict)
  const other = await createPost(strict, owner)
  const real = await uploadThumbnail(strict, other.id, owner.auth, await solidImage(101, 100, 'png'))
  t.equal(real.statusCode, 422, 'the limit is configurable')
  t.equal(real.json().error.code, 'IMAGE_TOO_MANY_PIXELS')
  t.equal(
    (await uploadThumbnail(strict, other.id, owner.auth, await solidImage(100, 100, 'png'))).statusCode,
    200,
    'at the limit is fine',
  )
})
