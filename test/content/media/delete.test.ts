// deleteMedia: 204 for an unused item, 409 MEDIA_IN_USE naming the posts that show it (bounded),
// and force: the item goes, its post_media rows with it, the posts read afresh, its images swept.
// A post shows the item because its body refers to it: createPost writes post_media with the html.
import t from 'tap'
import { build } from '../../helpers/build.ts'
import { registerUser } from '../../helpers/accounts.ts'
import { createPost } from '../../helpers/posts.ts'
import { createMedia } from '../../helpers/media.ts'
import { eventually } from '../../helpers/images.ts'
import type { build as Build } from '../../helpers/build.ts'

/**
 * Whether the image at `url` is gone once swept. The sweep job deleteMedia asks for may be running
 * (on PostgreSQL, on another connection), holding the rows a sweep here skips: wait for either.
 */
const swept = (app: Awaited<ReturnType<typeof Build>>, url: string) =>
  eventually(async () => {
    await app.services.thumbnails.sweepUnusedImages()
    return (await app.inject({ method: 'GET', url })).statusCode === 404
  })

t.test('an unused item is deleted: 204, then 404, its images swept', async (t) => {
  const app = await build(t)
  const owner = await registerUser(app)
  const item = await createMedia(app, owner.auth)
  const deleted = await app.inject({ method: 'DELETE', url: `/media/${item.id}`, headers: owner.auth })
  t.equal(deleted.statusCode, 204)
  const read = await app.inject({ method: 'GET', url: `/media/${item.id}`, headers: owner.auth })
  t.same([read.statusCode, read.json().error.code], [404, 'MEDIA_NOT_FOUND'])
  const again = await app.inject({ method: 'DELETE', url: `/media/${item.id}`, headers: owner.auth })
  t.same([again.statusCode, again.json().error.code], [404, 'MEDIA_NOT_FOUND'], 'deleting twice is 404')
  t.ok(await swept(app, item.url), 'the sweep removed its images')
})

t.test('an item posts show is 409 MEDIA_IN_USE naming them, at most 20; force deletes it', async (t) => {
  const app = await build(t)
  const owner = await registerUser(app)
  const item = await createMedia(app, owner.auth)
  const posts: string[] = []
  for (let index = 0; index < 22; index++) {
    const body = `![A photo](${item.url})`
    const post = await createPost(app, owner, { status: 'published', title: `Post ${index}`, body })
    t.same(post.mediaIds, [item.id], `post ${index} shows the item`)
    posts.push(post.id)
  }
  const refused = await app.inject({ method: 'DELETE', url: `/media/${item.id}`, headers: owner.auth })
  t.equal(refused.statusCode, 409)
  const error = refused.json().error
  t.equal(error.code, 'MEDIA_IN_USE')
  t.match(error.message, /22 posts show this media item/)
  t.same(
    error.details.slice(0, 20).map((detail: { path: string }) => detail.path),
    posts
      .slice(2)
      .reverse()
      .map((id) => `/posts/${id}`),
    'the 20 newest posts, newest first',
  )
  t.same(error.details[20], { path: '/posts', message: '2 more posts show it', code: 'truncated' })
  const kept = await app.inject({ method: 'GET', url: `/media/${item.id}`, headers: owner.auth })
  t.equal(kept.statusCode, 200, 'the item is still there')

  // Read once so the post cache holds it; force must make it forget.
  const cachedPost = await app.inject({ method: 'GET', url: `/posts/${posts[0]}` })
  t.equal(cachedPost.statusCode, 200)
  const invalidated: unknown[] = []
  const changed = app.services.postCache.invalidate.bind(app.services.postCache)
  app.services.postCache.invalidate = (selector) => {
    invalidated.push(selector)
    changed(selector)
  }
  t.teardown(() => {
    app.services.postCache.invalidate = changed
  })

  const forced = await app.inject({ method: 'DELETE', url: `/media/${item.id}?force=true`, headers: owner.auth })
  t.equal(forced.statusCode, 204)
  const rows = await app.services.database.prisma.postMedia.count({ where: { mediaId: item.id } })
  t.equal(rows, 0, 'its post_media rows went by cascade')
  for (const postId of posts)
    t.ok(
      invalidated.some((selector) => (selector as { postId?: string }).postId === postId),
      `the caches forgot post ${postId}`,
    )
  t.ok(await swept(app, item.url), 'its images are swept')
})

t.test('force on an unused item deletes it as without; force=maybe is a 400', async (t) => {
  const app = await build(t)
  const owner = await registerUser(app)
  const item = await createMedia(app, owner.auth)
  const bad = await app.inject({ method: 'DELETE', url: `/media/${item.id}?force=maybe`, headers: owner.auth })
  t.same([bad.statusCode, bad.json().error.details[0].path], [400, '/query/force'])
  const forced = await app.inject({ method: 'DELETE', url: `/media/${item.id}?force=true`, headers: owner.auth })
  t.equal(forced.statusCode, 204)
})
