// PATCH /me with a name empties the cached posts of that author even when the name it read before
// writing is already the new one: a concurrent rename may have landed in between (here: a direct
// UPDATE, which tells no cache), so "unchanged" is no proof that the cache is current.
import t from 'tap'
import { build } from '../../../helpers/build.ts'
import { registerUser } from '../../../helpers/accounts.ts'
import { createPost } from '../../../helpers/posts.ts'

t.test('a rename to the name already stored still refreshes the cached posts', async (t) => {
  const app = await build(t)
  const author = await registerUser(app)
  const post = await createPost(app, author, { status: 'published' })
  const authorName = async () =>
    (await app.inject({ method: 'GET', url: `/posts/${post.id}` })).json().data.author.name as string
  t.equal(await authorName(), 'Test user', 'cached under the old name')

  // The other rename's write, committed after this request read the user and before it wrote.
  await app.services.database.prisma.user.update({ where: { id: author.id }, data: { name: 'Renamed' } })
  const response = await app.inject({ method: 'PATCH', url: '/me', headers: author.auth, payload: { name: 'Renamed' } })
  t.equal(response.statusCode, 200)
  t.equal(await authorName(), 'Renamed')
})
