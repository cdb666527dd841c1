// listPosts builds its pages as JSON in the database; each item must be exactly what getPost
// returns for that post: the same keys in the same order, the same times to the millisecond, the
// same order of categories and thumbnail sizes. Checked on every way a page is read: a public
// list, a filtered one, unpublished ones, and a search (whose ids come from another query).
import { randomUUID } from 'node:crypto'
import t from 'tap'
import { build } from '../../helpers/build.ts'
import { registerAdmin, registerUser } from '../../helpers/accounts.ts'
import { createCategory, createComment } from '../../helpers/content.ts'
import { solidImage, uploadThumbnail } from '../../helpers/images.ts'
import { createPost } from '../../helpers/posts.ts'

t.test('every list item is, byte for byte, the post getPost returns', async (t) => {
  const app = await build(t)
  const [author, admin] = [await registerUser(app), await registerAdmin(app)]
  const word = `quokka${randomUUID().slice(0, 8)}`
  const tag = randomUUID().slice(0, 8)
  // Created out of slug order, with a slug that a locale-aware sort might place elsewhere.
  const categories = [
    await createCategory(app, admin, { slug: `c-${tag}`, name: 'A first by name' }),
    await createCategory(app, admin, { slug: `b1-${tag}`, name: 'Z last by name' }),
    await createCategory(app, admin, { slug: `b-${tag}`, name: 'M' }),
  ]
  const several = await createPost(app, author, {
    status: 'published',
    title: `Several categories and a ${word}: café, 日本, 🦘`,
    categoryIds: categories.map((category) => category.id),
  })
  const pictured = await createPost(app, author, { status: 'published', body: `A picture of a ${word}.` })
  const upload = await uploadThumbnail(app, pictured.id, author.auth, await solidImage(1200, 800, 'png'), {
    filename: 'a.png',
    contentType: 'image/png',
  })
  t.equal(upload.statusCode, 200, 'thumbnail uploaded')
  const filedNowhere = await createPost(app, author, { status: 'published', title: 'Filed nowhere: the default' })
  await createComment(app, author, filedNowhere.id)
  const draft = await createPost(app, author, { status: 'draft', categoryIds: [categories[0]!.id] })
  const scheduled = await createPost(app, author, {
    status: 'scheduled',
    publishedAt: new Date(Date.now() + 86_400_000).toISOString(),
  })

  const pictures = (await app.inject({ method: 'GET', url: `/posts/${pictured.id}` })).json().data.thumbnail
  t.ok(pictures.sizes.length > 1, `the thumbnail has ${pictures.sizes.length} sizes`)

  const lists: [string, string[]][] = [
    [`/posts?author=${author.id}`, [filedNowhere.id, pictured.id, several.id]],
    [`/posts?category=b1-${tag}`, [several.id]],
    [`/posts?status=draft&author=${author.id}`, [draft.id]],
    [`/posts?status=scheduled&author=${author.id}`, [scheduled.id]],
    [`/posts?q=${word}`, [pictured.id, several.id]],
  ]
  for (const [url, ids] of lists) {
    const page = await app.inject({ method: 'GET', url, headers: author.auth })
    t.equal(page.statusCode, 200, url)
    t.equal(Number(page.headers['content-length']), page.rawPayload.length, `${url}: Content-Length counts bytes`)
    const items = page.json().data as { id: string }[]
    t.same(
      items.map((item) => item.id),
      ids,
      `${url}: the expected posts, newest first`,
    )
    for (const item of items) {
      const single = (await app.inject({ method: 'GET', url: `/posts/${item.id}`, headers: author.auth })).json().data
      t.equal(JSON.stringify(item), JSON.stringify(single), `${url}: ${item.id} as getPost writes it`)
    }
  }
  const listed = (await app.inject({ method: 'GET', url: `/posts?author=${author.id}` })).json().data
  t.same(
    listed.find((post: { id: string }) => post.id === several.id).categories.map((c: { slug: string }) => c.slug),
    [`b-${tag}`, `b1-${tag}`, `c-${tag}`],
    'categories by slug, character by character',
  )
  t.equal(listed[0].categories.length, 1, 'filed nowhere: in the default category')
  t.equal(listed[0].commentCount, 1)
})
