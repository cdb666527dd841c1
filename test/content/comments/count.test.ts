// A post's commentCount stays exact: after creates, concurrent creates, deletes that take replies
// with them, and replies racing the deletion of their parent.
import t from 'tap'
import { build } from '../../helpers/build.ts'
import { registerUser } from '../../helpers/accounts.ts'
import { commentCounts, createComment, createPostRecord } from '../../helpers/content.ts'

t.test('creates, concurrent creates, and deletes with cascaded replies', async (t) => {
  const app = await build(t)
  const [author, reader] = [await registerUser(app), await registerUser(app)]
  const post = await createPostRecord(app, { author: author })
  const remove = (id: string) => app.inject({ method: 'DELETE', url: `/comments/${id}`, headers: reader.auth })

  const top = await createComment(app, reader, post.id)
  const reply = await createComment(app, reader, post.id, { parentId: top.id })
  t.same(await commentCounts(app, post.id), { stored: 2, actual: 2 })

  const burst = await Promise.all(
    Array.from({ length: 10 }, (_, i) =>
      app.inject({
        method: 'POST',
        url: `/posts/${post.id}/comments`,
        headers: reader.auth,
        payload: { body: `Burst ${i}`, parentId: i % 2 ? top.id : null },
      }),
    ),
  )
  t.same(
    burst.map((response) => response.statusCode),
    Array(10).fill(201),
    '10 concurrent creates all succeed',
  )
  t.same(await commentCounts(app, post.id), { stored: 12, actual: 12 })

  t.equal((await remove(reply.id)).statusCode, 204)
  t.same(await commentCounts(app, post.id), { stored: 11, actual: 11 }, 'a reply: one less')
  t.equal((await remove(top.id)).statusCode, 204)
  t.same(await commentCounts(app, post.id), { stored: 5, actual: 5 }, 'a top-level comment: it and its 5 replies')
  t.equal((await remove(top.id)).statusCode, 404, 'deleted already')

  const rest = (await app.inject({ method: 'GET', url: `/posts/${post.id}/comments?limit=100` })).json().data as {
    id: string
  }[]
  const deletions = await Promise.all(rest.map((comment) => remove(comment.id)))
  t.same(
    deletions.map((response) => response.statusCode),
    Array(5).fill(204),
    'concurrent deletes',
  )
  t.same(await commentCounts(app, post.id), { stored: 0, actual: 0 })
})

t.test('replies racing the deletion of their parent: each is either refused or deleted with it', async (t) => {
  const app = await build(t)
  const reader = await registerUser(app)
  const post = await createPostRecord(app, { author: reader })
  const parent = await createComment(app, reader, post.id)
  // Each its own text: the same reply twice to one comment is 409 DUPLICATE_COMMENT, not this race.
  const replies = Array.from({ length: 8 }, (_, i) =>
    app.inject({
      method: 'POST',
      url: `/posts/${post.id}/comments`,
      headers: reader.auth,
      payload: { body: `Racing ${i}`, parentId: parent.id },
    }),
  )
  const deletion = app.inject({ method: 'DELETE', url: `/comments/${parent.id}`, headers: reader.auth })
  const [deleted, ...answers] = await Promise.all([deletion, ...replies])
  t.equal(deleted!.statusCode, 204)
  t.ok(
    answers.every((response) => response.statusCode === 201 || response.statusCode === 422),
    'created before, or refused after',
  )
  t.same(await commentCounts(app, post.id), { stored: 0, actual: 0 }, 'no orphan, no drift')
})
