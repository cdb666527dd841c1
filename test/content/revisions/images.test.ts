// A revision keeps its thumbnail's images: the orphan sweep leaves them while a revision refers to
// them, restoring brings the thumbnail back, and once the revisions go (with the post) the sweep
// frees them.
import t from 'tap'
import { registerUser } from '../../helpers/accounts.ts'
import { build } from '../../helpers/build.ts'
import { keysOf, solidImage, uploadThumbnail } from '../../helpers/images.ts'
import { createPost } from '../../helpers/posts.ts'
import { restore, revisionsOf } from '../../helpers/revisions.ts'

t.test("the image sweep keeps a revision's thumbnail images", async (t) => {
  const app = await build(t)
  const author = await registerUser(app, 'rev-images')
  const post = await createPost(app, author)
  const first = await uploadThumbnail(app, post.id, author.auth, await solidImage(64, 48, 'jpeg'))
  t.equal(first.statusCode, 200)
  const firstKeys = keysOf(first.json().data)
  const second = await uploadThumbnail(app, post.id, author.auth, await solidImage(64, 48, 'png'))
  t.equal(second.statusCode, 200)
  const exists = async (keys: string[]) =>
    (await Promise.all(keys.map((key) => app.services.thumbnails.imageExists(key)))).every(Boolean)

  await app.services.thumbnails.sweepUnusedImages()
  t.ok(await exists(firstKeys), 'the replaced thumbnail’s images stay: a revision refers to them')
  const listed = await revisionsOf(app, post.id, author.auth)
  t.same(listed[0]!.changed, ['thumbnail'])
  const restored = await restore(app, post.id, listed[1]!.id, author.auth)
  t.equal(restored.statusCode, 200)
  t.same(keysOf(restored.json().data), firstKeys, 'the thumbnail is back')

  t.equal((await app.inject({ method: 'DELETE', url: `/posts/${post.id}`, headers: author.auth })).statusCode, 204)
  await app.services.thumbnails.sweepUnusedImages()
  t.notOk(
    (await Promise.all(firstKeys.map((key) => app.services.thumbnails.imageExists(key)))).some(Boolean),
    'with the post and its revisions gone, the sweep frees them',
  )
})
