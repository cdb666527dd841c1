// A post id is a UUID, which the spec accepts in either case: GET /posts/{id} must not serve a
// stale post because the read and the write that changed it spelt the id differently.
// Each case fills the cache under one spelling and writes under the other.
import t from 'tap'
import { build } from '../../../helpers/build.ts'
import { registerUser } from '../../../helpers/accounts.ts'
import { createComment } from '../../../helpers/content.ts'
import { createPost } from '../../../helpers/posts.ts'

type App = Awaited<ReturnType<typeof build>>

const read = (app: App, id: string) => app.inject({ method: 'GET', url: `/posts/${id}` })

t.test('reads and writes meet on one cache entry whatever the case of the id', async (t) => {
  const app = await build(t)
  const author = await registerUser(app)
  const reader = await registerUser(app, 'reader')

  t.test('read upper-case, edited lower-case, deleted lower-case', async (t) => {
    const post = await createPost(app, author, { status: 'published', title: 'Before' })
    const upper = post.id.toUpperCase()
    t.not(upper, post.id, 'the id has letters to change')
    t.equal((await read(app, upper)).json().data.title, 'Before')
    t.equal((await read(app, upper)).json().data.title, 'Before', 'now from the cache')
    const patched = await app.inject({
      method: 'PATCH',
      url: `/posts/${post.id}`,
      headers: author.auth,
      payload: { title: 'After' },
    })
    t.equal(patched.statusCode, 200)
    t.equal((await read(app, upper)).json().data.title, 'After')
    t.equal((await app.inject({ method: 'DELETE', url: `/posts/${post.id}`, headers: author.auth })).statusCode, 204)
    t.equal((await read(app, upper)).statusCode, 404, 'the deleted post does not come back')
  })

  t.test('read lower-case, edited upper-case', async (t) => {
    const post = await createPost(app, author, { status: 'published', title: 'Before' })
    t.equal((await read(app, post.id)).json().data.title, 'Before')
    const patched = await app.inject({
      method: 'PATCH',
      url: `/posts/${post.id.toUpperCase()}`,
      headers: author.auth,
      payload: { title: 'After' },
    })
    t.equal(patched.statusCode, 200)
    t.equal((await read(app, post.id)).json().data.title, 'After')
  })

  t.test('read lower-case, commented upper-case', async (t) => {
    const post = await createPost(app, author, { status: 'published' })
    t.equal((await read(app, post.id)).json().data.commentCount, 0)
    await createComment(app, reader, post.id.toUpperCase())
    t.equal((await read(app, post.id)).json().data.commentCount, 1)
  })
})
