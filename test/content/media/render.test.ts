// Media in a post's body, over HTTP: `![alt](<media url>)` naming the author's own media item
// renders a responsive <img> (every rendition in srcset, the largest as src, its size, lazy and
// async), every URL in it is served, and the post says which media it shows (mediaIds) alike in
// getPost, getPostBySlug and listPosts. The items are uploaded (uploadMedia), as authors make them.
import t from 'tap'
import { registerUser } from '../../helpers/accounts.ts'
import { build } from '../../helpers/build.ts'
import { createMedia, imagesIn, type MediaItem } from '../../helpers/media.ts'
import { createPost } from '../../helpers/posts.ts'

/** The <img> a media item renders to, attribute by attribute. */
const responsive = (item: MediaItem, alt: string) => ({
  src: item.url,
  srcset: item.renditions.map((rendition) => `${rendition.url} ${rendition.width}w`).join(', '),
  sizes: `(max-width: ${item.width}px) 100vw, ${item.width}px`,
  width: String(item.width),
  height: String(item.height),
  alt,
  loading: 'lazy',
  decoding: 'async',
})

t.test('a post using three media items renders three responsive images, each URL served', async (t) => {
  const app = await build(t)
  const author = await registerUser(app)
  const items = [
    await createMedia(app, author.auth, { width: 1280 }),
    await createMedia(app, author.auth, { width: 800, alt: 'The library says' }),
    await createMedia(app, author.auth, { width: 1600 }),
  ]
  t.same(
    items.map((item) => item.renditions.map((rendition) => rendition.width)),
    [
      [320, 640, 1280],
      [320, 640],
      [320, 640, 1280],
    ],
    'the renditions uploadMedia made: every width up to the image',
  )
  const body = [
    'Three pictures.',
    `![Larches above Sils](${items[0]!.url})`,
    // The Markdown's alt text is empty: the item's own is used.
    `![](${items[1]!.url})`,
    // A smaller rendition's URL names the item too: it renders whole.
    `Inline ![a pass](${items[2]!.renditions[0]!.url}) too.`,
  ].join('\n\n')
  const post = await createPost(app, author, { body, status: 'published' })

  const images = imagesIn(post.html as string)
  t.same(
    images,
    [
      responsive(items[0]!, 'Larches above Sils'),
      responsive(items[1]!, 'The library says'),
      responsive(items[2]!, 'a pass'),
    ],
    'three responsive images',
  )
  t.same(post.mediaIds, items.map((item) => item.id).sort(), 'mediaIds: the three, sorted')

  const urls = new Set(
    images.flatMap((image) => [image.src!, ...image.srcset!.split(', ').map((c) => c.split(' ')[0]!)]),
  )
  t.equal(urls.size, 3 + 2 + 3, 'every rendition of every item')
  for (const url of urls) {
    const image = await app.inject({ method: 'GET', url })
    t.equal(image.statusCode, 200, url)
    t.equal(image.headers['content-type'], 'image/webp', url)
  }
})

t.test('mediaIds are the same in getPost, getPostBySlug and listPosts, and a list item is getPost', async (t) => {
  const app = await build(t)
  const author = await registerUser(app)
  const [first, second] = [await createMedia(app, author.auth), await createMedia(app, author.auth)]
  const body = `![one](${second!.url})\n\n![two](${first!.url})\n\n![one again](${second!.url})`
  const post = await createPost(app, author, { body, status: 'published' })
  const expected = [first!.id, second!.id].sort()
  t.same(post.mediaIds, expected, 'each item once')

  const byId = await app.inject({ method: 'GET', url: `/posts/${post.id}` })
  const bySlug = await app.inject({ method: 'GET', url: `/posts/by-slug/${post.slug as string}` })
  const list = await app.inject({ method: 'GET', url: `/posts?author=${author.id}` })
  t.same(byId.json().data.mediaIds, expected, 'getPost')
  t.same(bySlug.json().data.mediaIds, expected, 'getPostBySlug')
  t.same(list.json().data[0].mediaIds, expected, 'listPosts')
  t.equal(
    JSON.stringify(list.json().data[0]),
    JSON.stringify(byId.json().data),
    'the list item is getPost, byte for byte',
  )

  const plain = await createPost(app, author, { body: 'No pictures.', status: 'published' })
  t.same(plain.mediaIds, [], 'a post without media: []')
  const listed = (await app.inject({ method: 'GET', url: `/posts?author=${author.id}` })).json().data
  t.same(
    listed.map((item: { mediaIds: string[] }) => item.mediaIds),
    [[], expected],
  )
})
