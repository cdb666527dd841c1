// The `media` tag through the typed client on a real port, as an author's editor uses it: upload an
// image, find it in the library, read it, give it an alt text, show it in a post's body, be refused
// deleting it while the post shows it (409 naming the post), then delete it with force.
import t from 'tap'
import { solidImage } from '../helpers/images.ts'
import { serve, signUp } from '../helpers/client.ts'

t.test('typed client journey: media', async (t) => {
  const { client } = await serve(t)
  const author = await signUp(client, 'media')

  const png = await solidImage(900, 600, 'png', '#2d6a4f')
  const uploaded = await author.api.POST('/media', {
    // `format: binary` types the file as a Blob; openapi-fetch sends JSON unless told otherwise.
    body: { file: new Blob([png], { type: 'image/png' }) },
    bodySerializer: ({ file }) => {
      const form = new FormData()
      form.append('file', file, 'photo.png')
      return form
    },
  })
  t.equal(uploaded.response.status, 201)
  const item = uploaded.data!.data
  t.same(
    item.renditions.map((rendition) => rendition.width),
    [320, 640],
    'renditions up to the image, never upscaled',
  )
  t.equal(item.url, item.renditions.at(-1)!.url, 'url: the largest rendition')
  t.equal(item.alt, null)
  const id = item.id

  const listed = await author.api.GET('/media', { params: { query: { limit: 5 } } })
  t.same(
    listed.data?.data.map((each) => each.id),
    [id],
    "the author's library",
  )
  t.equal(listed.data?.meta.page.nextCursor, null)

  const read = await author.api.GET('/media/{id}', { params: { path: { id } } })
  t.same(read.data?.data, item, 'getMedia answers what the upload did')
  t.equal(
    (await client().GET('/media/{id}', { params: { path: { id } } })).error?.error.code,
    'MEDIA_NOT_FOUND',
    'no published post shows it: hidden from others',
  )

  const updated = await author.api.PATCH('/media/{id}', {
    params: { path: { id } },
    body: { alt: 'A green square' },
  })
  t.equal(updated.data?.data.alt, 'A green square')

  const post = await author.api.POST('/posts', {
    body: { title: 'With a picture', body: `Look:\n\n![](${item.url})`, status: 'published' },
  })
  const postId = post.data!.data.id
  t.same(post.data?.data.mediaIds, [id], 'the post says it shows the item')
  t.match(post.data?.data.html, /alt="A green square"/, "the library's alt text, as the body gave none")
  t.equal(
    (await client().GET('/media/{id}', { params: { path: { id } } })).data?.data.id,
    id,
    'a published post shows it: anyone may read it',
  )

  const refused = await author.api.DELETE('/media/{id}', { params: { path: { id } } })
  t.equal(refused.response.status, 409)
  t.equal(refused.error?.error.code, 'MEDIA_IN_USE')
  t.same(
    refused.error?.error.details.map((detail) => detail.path),
    [`/posts/${postId}`],
    'the post that shows it',
  )

  const forced = await author.api.DELETE('/media/{id}', { params: { path: { id }, query: { force: true } } })
  t.equal(forced.response.status, 204)
  t.equal(
    (await author.api.GET('/media/{id}', { params: { path: { id } } })).error?.error.code,
    'MEDIA_NOT_FOUND',
    'gone',
  )
  t.same(
    (await client().GET('/posts/{id}', { params: { path: { id: postId } } })).data?.data.mediaIds,
    [],
    'the post no longer shows it',
  )
})
