// Only the author's own media render responsive: another user's item, a key no item has, a URL
// spelled otherwise or from elsewhere render as a plain <img> (src, alt), as before, and are not
// in mediaIds. An admin editing someone's post shows that author's media, never the admin's.
import t from 'tap'
import { registerAdmin, registerUser } from '../../helpers/accounts.ts'
import { build } from '../../helpers/build.ts'
import { createMedia, imagesIn } from '../../helpers/media.ts'
import { createPost } from '../../helpers/posts.ts'

const UNKNOWN = `/images/${'a'.repeat(64)}.webp`

t.test("another user's media, unknown keys and foreign URLs render plain, and are not in mediaIds", async (t) => {
  const app = await build(t)
  const [author, other] = [await registerUser(app), await registerUser(app, 'other')]
  const own = await createMedia(app, author.auth, { width: 1280 })
  const theirs = await createMedia(app, other.auth)
  const body = [
    `![theirs](${theirs.url})`,
    `![unknown](${UNKNOWN})`,
    `![foreign](https://photos.example.org${own.url})`,
    `![query](${own.url}?w=1)`,
    `![mine](${own.url})`,
  ].join('\n\n')
  const post = await createPost(app, author, { body, status: 'published' })
  const images = imagesIn(post.html as string)
  t.same(
    images.slice(0, 4),
    [
      { src: theirs.url, alt: 'theirs' },
      { src: UNKNOWN, alt: 'unknown' },
      { src: `https://photos.example.org${own.url}`, alt: 'foreign' },
      { src: `${own.url}?w=1`, alt: 'query' },
    ],
    'plain images: src and alt only',
  )
  t.equal(images[4]!.srcset?.split(', ').length, 3, 'the own item renders responsive')
  t.same(post.mediaIds, [own.id], 'only the own item is shown')
  const stored = await app.services.database.prisma.postMedia.findMany({ where: { postId: post.id } })
  t.same(
    stored.map((row) => row.mediaId),
    [own.id],
    'post_media holds the own item only',
  )
})

t.test("an admin editing someone's post shows the author's media, not the admin's", async (t) => {
  const app = await build(t)
  const [author, admin] = [await registerUser(app), await registerAdmin(app)]
  const [authors, admins] = [await createMedia(app, author.auth), await createMedia(app, admin.auth)]
  const post = await createPost(app, author, { body: 'Draft.' })
  const edited = await app.inject({
    method: 'PATCH',
    url: `/posts/${post.id}`,
    headers: admin.auth,
    payload: { body: `![a](${authors.url})\n\n![b](${admins.url})` },
  })
  t.equal(edited.statusCode, 200)
  t.same(edited.json().data.mediaIds, [authors.id])
  t.same(
    imagesIn(edited.json().data.html).map((image) => 'srcset' in image),
    [true, false],
  )
})
