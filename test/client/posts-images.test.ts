// Journeys of the `posts` and `images` tags through the typed client on a real port.
import t from 'tap'
import { solidImage } from '../helpers/images.ts'
import { serve, signUp } from '../helpers/client.ts'

t.test('typed client journeys: posts, images', async (t) => {
  const { client } = await serve(t)
  const author = await signUp(client, 'author')

  t.test('posts: draft, conditional read, publish with If-Match, list, delete', async (t) => {
    const created = await author.api.POST('/posts', {
      body: { title: 'Typed client post', body: 'Written through **openapi-fetch**.', status: 'draft' },
    })
    const id = created.data!.data.id
    t.equal(created.response.status, 201)
    t.equal(
      (await client().GET('/posts/{id}', { params: { path: { id } } })).error?.error.code,
      'POST_NOT_FOUND',
      'a draft is hidden from others',
    )

    const read = await author.api.GET('/posts/{id}', { params: { path: { id } } })
    const etag = read.response.headers.get('etag')!
    const unchanged = await author.api.GET('/posts/{id}', {
      params: { path: { id }, header: { 'If-None-Match': etag } },
    })
    t.equal(unchanged.response.status, 304)

    const published = await author.api.PATCH('/posts/{id}', {
      params: { path: { id }, header: { 'If-Match': etag } },
      body: { status: 'published' },
    })
    t.equal(published.data?.data.status, 'published')
    const stale = await author.api.PATCH('/posts/{id}', {
      params: { path: { id }, header: { 'If-Match': etag } },
      body: { title: 'Too late' },
    })
    t.equal(stale.error?.error.code, 'PRECONDITION_FAILED')

    const list = await client().GET('/posts', { params: { query: { author: author.user.id, limit: 5 } } })
    t.same(
      list.data?.data.map((post) => post.id),
      [id],
    )
    t.equal((await author.api.DELETE('/posts/{id}', { params: { path: { id } } })).response.status, 204)
    t.equal((await client().GET('/posts/{id}', { params: { path: { id } } })).error?.error.code, 'POST_NOT_FOUND')
  })

  t.test('images: upload a thumbnail, download its bytes, revalidate, remove it', async (t) => {
    const post = (
      await author.api.POST('/posts', {
        body: { title: 'With a picture', body: 'See the thumbnail.', status: 'published' },
      })
    ).data!.data
    const png = await solidImage(700, 500, 'png')
    const uploaded = await author.api.PUT('/posts/{id}/thumbnail', {
      params: { path: { id: post.id } },
      // `format: binary` types the file as a Blob; openapi-fetch sends JSON unless told otherwise.
      body: { file: new Blob([png], { type: 'image/png' }) },
      bodySerializer: ({ file }) => {
        const form = new FormData()
        form.append('file', file, 'photo.png')
        return form
      },
    })
    const sizes = uploaded.data!.data.thumbnail!.sizes
    t.same(
      sizes.map((size) => size.width),
      [320, 640],
    )

    const key = sizes[0]!.url.slice('/images/'.length)
    const image = await client().GET('/images/{key}', { params: { path: { key } }, parseAs: 'blob' })
    t.equal(image.response.headers.get('content-type'), 'image/webp')
    t.ok(image.data!.size > 0)
    const etag = image.response.headers.get('etag')!
    const cached = await client().GET('/images/{key}', {
      params: { path: { key }, header: { 'If-None-Match': etag } },
      parseAs: 'arrayBuffer',
    })
    t.equal(cached.response.status, 304)

    t.equal(
      (await author.api.DELETE('/posts/{id}/thumbnail', { params: { path: { id: post.id } } })).response.status,
      204,
    )
    t.equal((await client().GET('/posts/{id}', { params: { path: { id: post.id } } })).data?.data.thumbnail, null)
  })
})
