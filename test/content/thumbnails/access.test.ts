// Thumbnails over HTTP, who may do what: the upload's multipart shape, the rights to upload and
// delete, the caller checked before the body is read, and unknown images in the envelope.
import t from 'tap'
import { build } from '../../helpers/build.ts'
import { registerAdmin, registerUser } from '../../helpers/accounts.ts'
import { createPost } from '../../helpers/posts.ts'
import { keysOf, multipartBody, solidImage, uploadThumbnail } from '../../helpers/images.ts'

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
