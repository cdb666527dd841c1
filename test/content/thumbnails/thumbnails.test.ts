// Thumbnails over HTTP: uploads checked by their bytes, re-encoded without metadata at the
// promised widths, served with immutable caching, and refused with the right code otherwise.
import { createHash } from 'node:crypto'
import t from 'tap'
import sharp from 'sharp'
import { build } from '../../helpers/build.ts'
import { registerAdmin, registerUser } from '../../helpers/accounts.ts'
import { createPost } from '../../helpers/posts.ts'
import {
  hasGpsIfd,
  jpegWithGps,
  keysOf,
  multipartBody,
  pngClaiming,
  solidImage,
  uploadThumbnail,
} from '../../helpers/images.ts'

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

t.test('the body is one file part named "file", as multipart/form-data', async (t) => {
  const app = await build(t)
  const author = await registerUser(app)
  const post = await createPost(app, author)
  const png = await solidImage(50, 50, 'png')
  const file = { name: 'file', data: png, filename: 'a.png', contentType: 'image/png' }
  const put = (payload: Buffer | string, contentType: string) =>
    app.inject({
      method: 'PUT',
      url: `/posts/${post.id}/thumbnail`,
      headers: { ...author.auth, 'content-type': contentType },
      payload,
    })
  const forms = {
    'a file part under another name': [{ ...file, name: 'image' }],
    'a text field instead of a file': [{ name: 'file', data: 'hello' }],
    'a field before the file': [{ name: 'caption', data: 'hi' }, file],
    'a field after the file': [file, { name: 'caption', data: 'hi' }],
    'two files': [file, { ...file, name: 'file' }],
    'no parts at all': [],
  }
  for (const [name, parts] of Object.entries(forms)) {
    const body = multipartBody(parts)
    const response = await put(body.payload, body.contentType)
    t.equal(response.statusCode, 400, name)
    t.match(response.json(), { data: null, error: { code: 'VALIDATION_FAILED', details: [{ path: '/body' }] } }, name)
  }
  t.equal((await put('not multipart at all', 'multipart/form-data')).statusCode, 400, 'no boundary')
  const truncated = multipartBody([file])
  t.equal((await put(truncated.payload.subarray(0, 200), truncated.contentType)).statusCode, 400, 'a form cut short')

  for (const [type, payload] of [
    ['application/json', '{"file":"x"}'],
    ['text/plain', 'x'],
    ['image/png', png],
  ] as const) {
    const response = await put(payload, type)
    t.equal(response.statusCode, 415, type)
    t.match(response.json(), { data: null, error: { code: 'UNSUPPORTED_MEDIA_TYPE' } }, type)
  }
  const bare = await app.inject({ method: 'PUT', url: `/posts/${post.id}/thumbnail`, headers: author.auth })
  t.equal(bare.statusCode, 400, 'no body at all: the body is required, as for every operation requiring one')
  t.match(bare.json().error, { code: 'VALIDATION_FAILED', details: [{ path: '/body', code: 'required' }] })
  const json = await app.inject({
    method: 'POST',
    url: '/posts',
    headers: { ...author.auth, 'content-type': multipartBody([file]).contentType },
    payload: multipartBody([file]).payload,
  })
  t.equal(json.statusCode, 415, 'and a JSON operation refuses multipart')
  t.equal(
    (await app.inject({ method: 'GET', url: `/posts/${post.id}`, headers: author.auth })).json().data.thumbnail,
    null,
  )
})

t.test('anonymous 401, another user 403 (404 on a draft), the author and an admin 200', async (t) => {
  const app = await build(t)
  const [author, stranger, admin] = [await registerUser(app), await registerUser(app), await registerAdmin(app)]
  const post = await createPost(app, author, { status: 'published' })
  const draft = await createPost(app, author)
  const image = await solidImage(400, 300, 'png')

  const anonymous = await uploadThumbnail(app, post.id, {}, image)
  t.equal(anonymous.statusCode, 401)
  t.equal(anonymous.json().error.code, 'UNAUTHENTICATED')
  const other = await uploadThumbnail(app, post.id, stranger.auth, image)
  t.equal(other.statusCode, 403)
  t.equal(other.json().error.code, 'FORBIDDEN')
  const hidden = await uploadThumbnail(app, draft.id, stranger.auth, image)
  t.equal(hidden.statusCode, 404, 'a draft does not exist for another user')
  t.equal(hidden.json().error.code, 'POST_NOT_FOUND')
  t.equal(
    (await uploadThumbnail(app, '0192f7c4-5a2b-7c3d-8e4f-123456789abc', author.auth, image)).json().error.code,
    'POST_NOT_FOUND',
  )

  t.equal((await uploadThumbnail(app, post.id, author.auth, image)).statusCode, 200, 'the author')
  t.equal((await uploadThumbnail(app, draft.id, author.auth, image)).statusCode, 200, 'the author, on a draft')
  const byAdmin = await uploadThumbnail(app, post.id, admin.auth, await solidImage(400, 300, 'png', '#00ff00'))
  t.equal(byAdmin.statusCode, 200, 'an admin')
  t.equal(byAdmin.json().data.author.id, author.id, 'the post stays its author’s')

  const del = (id: string, headers: Record<string, string>) =>
    app.inject({ method: 'DELETE', url: `/posts/${id}/thumbnail`, headers })
  t.equal((await del(post.id, {})).statusCode, 401)
  t.equal((await del(post.id, stranger.auth)).statusCode, 403)
  t.equal((await del(draft.id, stranger.auth)).statusCode, 404)
  t.equal((await del(post.id, admin.auth)).statusCode, 204, 'an admin')
  t.equal((await del(draft.id, author.auth)).statusCode, 204, 'the author')
})

t.test('the caller is checked before the upload is read', async (t) => {
  const app = await build(t, { UPLOAD_LIMIT_BYTES: '200000' })
  const [author, stranger] = [await registerUser(app), await registerUser(app)]
  const post = await createPost(app, author, { status: 'published' })
  const huge = Buffer.alloc(3 * 1024 * 1024, 1)
  t.equal((await uploadThumbnail(app, post.id, {}, huge)).statusCode, 401, 'anonymous: 401, not 413')
  t.equal((await uploadThumbnail(app, post.id, stranger.auth, huge)).statusCode, 403, 'another user: 403, not 413')
  t.equal(
    (await uploadThumbnail(app, post.id, stranger.auth, 'not an image')).statusCode,
    403,
    'another user: 403, not 415',
  )
  const author413 = await uploadThumbnail(app, post.id, author.auth, huge)
  t.equal(author413.statusCode, 413, 'the author: over the limit')
  t.match(author413.json(), { data: null, error: { code: 'PAYLOAD_TOO_LARGE', message: /200000 bytes/ } })
})

t.test('deletePostThumbnail: 204, then the post has none; 404 THUMBNAIL_NOT_FOUND without one', async (t) => {
  const app = await build(t)
  const author = await registerUser(app)
  const post = await createPost(app, author, { status: 'published' })
  const del = () => app.inject({ method: 'DELETE', url: `/posts/${post.id}/thumbnail`, headers: author.auth })
  const none = await del()
  t.equal(none.statusCode, 404)
  t.equal(none.json().error.code, 'THUMBNAIL_NOT_FOUND')

  const uploaded = await uploadThumbnail(app, post.id, author.auth, await solidImage(400, 300, 'jpeg'))
  const withThumbnail = uploaded.headers.etag
  const removed = await del()
  t.equal(removed.statusCode, 204)
  t.equal(removed.body, '')
  const read = await app.inject({ method: 'GET', url: `/posts/${post.id}` })
  t.equal(read.json().data.thumbnail, null)
  t.not(read.headers.etag, withThumbnail, 'the ETag changed')
  t.equal((await del()).json().error.code, 'THUMBNAIL_NOT_FOUND', 'and a second time')
  t.equal(
    (
      await app.inject({
        method: 'DELETE',
        url: '/posts/0192f7c4-5a2b-7c3d-8e4f-123456789abc/thumbnail',
        headers: author.auth,
      })
    ).json().error.code,
    'POST_NOT_FOUND',
  )
  t.ok(keysOf(uploaded.json().data).length > 0)
})

t.test('getImage: 404 IMAGE_NOT_FOUND for an unknown key, 400 for a malformed one, both in the envelope', async (t) => {
  const app = await build(t)
  const unknown = await app.inject({ method: 'GET', url: `/images/${'a'.repeat(64)}.webp` })
  t.equal(unknown.statusCode, 404)
  t.match(unknown.json(), { data: null, error: { code: 'IMAGE_NOT_FOUND' }, meta: { requestId: String } })
  t.notOk(unknown.headers['cache-control'], 'a miss is not cached as immutable')
  const revalidated = await app.inject({
    method: 'GET',
    url: `/images/${'a'.repeat(64)}.webp`,
    headers: { 'if-none-match': `"${'a'.repeat(64)}.webp"` },
  })
  t.equal(revalidated.statusCode, 404, 'no 304 for an image that is gone')
  for (const key of [
    'abc.webp',
    `${'A'.repeat(64)}.webp`,
    `${'a'.repeat(64)}.svg`,
    `${'a'.repeat(64)}`,
    `${'a'.repeat(65)}.png`,
  ]) {
    const response = await app.inject({ method: 'GET', url: `/images/${key}` })
    t.equal(response.statusCode, 400, key)
    t.match(response.json().error, { code: 'VALIDATION_FAILED', details: [{ path: '/params/key' }] }, key)
  }
})
