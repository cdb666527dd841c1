// With MEDIA_PUBLIC_BASE_URL (a CDN or a public bucket), image urls are `${base}/<key>`: absolute,
// valid against the spec's widened ThumbnailSize.url, the same bytes in getPost, listPosts and
// a search (both built in SQL), and the key still served by getImage (a CDN's origin).
import { createHash, randomUUID } from 'node:crypto'
import t from 'tap'
import { build } from '../helpers/build.ts'
import { registerUser } from '../helpers/accounts.ts'
import { createPost } from '../helpers/posts.ts'
import { keysOf, solidImage, uploadThumbnail } from '../helpers/images.ts'
import { specSchemas } from '../helpers/spec-schemas.ts'

const BASE = 'https://cdn.example.com/blog-images'

t.test('image urls point at MEDIA_PUBLIC_BASE_URL, the same in getPost and in lists', async (t) => {
  // With a trailing slash, as operators write it: kept without one.
  const app = await build(t, { MEDIA_PUBLIC_BASE_URL: `${BASE}/` })
  const author = await registerUser(app)
  const word = `numbat${randomUUID().slice(0, 8)}`
  const post = await createPost(app, author, { status: 'published', body: `A picture of a ${word}.` })
  const upload = await uploadThumbnail(app, post.id, author.auth, await solidImage(900, 600, 'png'))
  t.equal(upload.statusCode, 200)
  const single = await app.inject({ method: 'GET', url: `/posts/${post.id}` })
  const read = single.json().data
  const validSize = specSchemas().compile({ $ref: '#/components/schemas/ThumbnailSize' })
  for (const size of read.thumbnail.sizes) {
    t.match(size.url, new RegExp(`^${BASE}/[a-f0-9]{64}\\.webp$`), `${size.url}: the base, /, the key`)
    t.ok(validSize(size), `${size.url}: valid against the spec's ThumbnailSize`)
  }
  for (const key of keysOf(read)) {
    const image = await app.inject({ method: 'GET', url: `/images/${key}` })
    t.equal(image.statusCode, 200, `${key}: getImage still serves it, for a CDN pulling from the API`)
    t.equal(`${createHash('sha256').update(image.rawPayload).digest('hex')}.webp`, key)
  }
  for (const url of [`/posts?author=${author.id}`, `/posts?q=${word}`]) {
    const items = (await app.inject({ method: 'GET', url })).json().data as { id: string }[]
    t.equal(JSON.stringify(items[0]), JSON.stringify(read), `${url}: the item is, byte for byte, getPost's`)
  }
})
