// Behind a proxy that serves the API under a path (PUBLIC_URL=https://example.com/blog), a
// thumbnail's url carries that path: an absolute-path reference that a client resolves against
// PUBLIC_URL's origin, reaching getImage through the proxy, which strips the path. getPost,
// listPosts (built in SQL) and If-Match (the ETag over those bytes) agree on it.
import { createHash, randomUUID } from 'node:crypto'
import t from 'tap'
import { build } from '../../helpers/build.ts'
import { registerUser } from '../../helpers/accounts.ts'
import { createPost } from '../../helpers/posts.ts'
import { solidImage, uploadThumbnail } from '../../helpers/images.ts'
import { specSchemas } from '../../helpers/spec-schemas.ts'

const PUBLIC_URL = 'https://example.com/blog'
const URL_SHAPE = /^\/blog\/images\/([a-f0-9]{64})\.webp$/

type Size = { width: number; height: number; url: string; contentType: string }

t.test("a thumbnail's url carries PUBLIC_URL's path, the same in getPost and listPosts", async (t) => {
  // With a trailing slash, as operators write it: kept without one.
  const app = await build(t, { PUBLIC_URL: `${PUBLIC_URL}/` })
  const author = await registerUser(app)
  const word = `wombat${randomUUID().slice(0, 8)}`
  const post = await createPost(app, author, { status: 'published', body: `A picture of a ${word}.` })
  const upload = await uploadThumbnail(app, post.id, author.auth, await solidImage(900, 600, 'png'), {
    filename: 'a.png',
    contentType: 'image/png',
  })
  t.equal(upload.statusCode, 200, 'thumbnail uploaded')

  const single = await app.inject({ method: 'GET', url: `/posts/${post.id}` })
  t.equal(single.statusCode, 200)
  const read = single.json().data
  const sizes = read.thumbnail.sizes as Size[]
  t.same(
    sizes.map((size) => size.width),
    [320, 640],
    'every width up to the original',
  )
  t.same(upload.json().data.thumbnail, read.thumbnail, 'the upload answers the same urls')

  const validSize = specSchemas().compile({ $ref: '#/components/schemas/ThumbnailSize' })
  for (const size of sizes) {
    const key = URL_SHAPE.exec(size.url)?.[1]
    t.ok(key, `${size.url}: /blog/images/<key>.webp`)
    t.ok(validSize(size), `${size.url}: valid against the spec's ThumbnailSize`)
    // What a client does: resolve it against PUBLIC_URL; what the proxy does: strip /blog.
    const resolved = new URL(size.url, `${PUBLIC_URL}/`)
    t.equal(resolved.href, `https://example.com${size.url}`, 'resolved against the origin')
    t.ok(resolved.pathname.startsWith('/blog/'))
    const image = await app.inject({ method: 'GET', url: resolved.pathname.slice('/blog'.length) })
    t.equal(image.statusCode, 200, `${size.url} is served at /images/<key>.webp`)
    t.equal(image.headers['content-type'], 'image/webp')
    t.equal(createHash('sha256').update(image.rawPayload).digest('hex'), key, 'its bytes')
  }

  // A public list (cached), a search (read every time): both built in SQL, both the same bytes.
  for (const url of [`/posts?author=${author.id}`, `/posts?q=${word}`]) {
    const page = await app.inject({ method: 'GET', url })
    t.equal(page.statusCode, 200, url)
    const items = page.json().data as { id: string }[]
    t.same(
      items.map((item) => item.id),
      [post.id],
      url,
    )
    t.equal(JSON.stringify(items[0]), JSON.stringify(read), `${url}: the item is, byte for byte, getPost's`)
  }

  // The ETag getPost sends is the one an update checks If-Match against.
  const updated = await app.inject({
    method: 'PATCH',
    url: `/posts/${post.id}`,
    headers: { ...author.auth, 'if-match': single.headers.etag as string },
    payload: { title: 'Renamed' },
  })
  t.equal(updated.statusCode, 200, "If-Match with getPost's ETag")
  t.same(updated.json().data.thumbnail, read.thumbnail, 'the update answers the same urls')
})
