// A post's mediaIds follow its body: an edit of the body replaces them (and the cached post and
// lists show the new ones), an edit of anything else leaves them.
import t from 'tap'
import { registerUser } from '../../helpers/accounts.ts'
import { build } from '../../helpers/build.ts'
import { createMedia } from '../../helpers/media.ts'
import { createPost } from '../../helpers/posts.ts'

t.test('editing the body replaces mediaIds; other edits leave them', async (t) => {
  const app = await build(t)
  const author = await registerUser(app)
  const [first, second] = [await createMedia(app, author.auth), await createMedia(app, author.auth)]
  const post = await createPost(app, author, { body: `![first](${first.url})`, status: 'published' })
  const read = async () => (await app.inject({ method: 'GET', url: `/posts/${post.id}` })).json().data
  const listed = async () =>
    (await app.inject({ method: 'GET', url: `/posts?author=${author.id}` })).json().data[0].mediaIds
  const update = (payload: object) =>
    app.inject({ method: 'PATCH', url: `/posts/${post.id}`, headers: author.auth, payload })
  t.same((await read()).mediaIds, [first.id], 'read (and cached)')
  t.same(await listed(), [first.id], 'listed (and cached)')

  const edited = await update({ body: `![second](${second.url})\n\n![first](${first.url})` })
  const both = [first.id, second.id].sort()
  t.same(edited.json().data.mediaIds, both, 'the answer to the edit')
  t.same((await read()).mediaIds, both, 'getPost: the cached post was forgotten')
  t.same(await listed(), both, 'listPosts: the cached page was forgotten')

  t.same((await update({ title: 'Retitled' })).json().data.mediaIds, both, 'a title edit leaves them')

  t.same((await update({ body: 'No pictures now.' })).json().data.mediaIds, [], 'a body without media: []')
  t.same((await read()).mediaIds, [])
  t.equal(await app.services.database.prisma.postMedia.count({ where: { postId: post.id } }), 0, 'rows gone')
})
