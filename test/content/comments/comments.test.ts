// Comments over HTTP: ordering and paging, one level of replies, drafts, edits, and bodies that
// carry fields nobody may set.
import t from 'tap'
import { build } from '../../helpers/build.ts'
import { registerUser } from '../../helpers/accounts.ts'
import { createComment, createPostRecord } from '../../helpers/content.ts'

const UNKNOWN_ID = '0192f7e3-7c8d-7e9f-a0b1-c2d3e4f5a6b7'

interface Listed {
  id: string
  parentId: string | null
  createdAt: string
}

t.test('listComments: oldest first, replies included, each comment exactly once across pages', async (t) => {
  const app = await build(t)
  const [author, reader] = [await registerUser(app), await registerUser(app)]
  const post = await createPostRecord(app, { author: author })
  const created: string[] = []
  for (let i = 0; i < 4; i++) {
    const top = await createComment(app, reader, post.id, { body: `Top ${i}` })
    created.push(top.id)
    created.push((await createComment(app, author, post.id, { body: `Reply ${i}`, parentId: top.id })).id)
  }
  // Comments written while a reader pages must neither repeat nor hide the ones already there.
  const seen: Listed[] = []
  let cursor: string | null = null
  do {
    const response = await app.inject({
      method: 'GET',
      url: `/posts/${post.id}/comments?limit=3${cursor ? `&cursor=${cursor}` : ''}`,
    })
    t.equal(response.statusCode, 200)
    const body: { data: Listed[]; meta: { page: { limit: number; nextCursor: string | null } } } = response.json()
    t.ok(body.data.length <= 3)
    seen.push(...body.data)
    cursor = body.meta.page.nextCursor
    if (cursor !== null && seen.length === 3)
      created.push((await createComment(app, reader, post.id, { body: 'Late' })).id)
  } while (cursor !== null)
  t.same(
    seen.map((comment) => comment.id),
    created,
    'oldest first, each once, the late one at the end',
  )
  t.ok(
    seen.every((comment, i) => i === 0 || seen[i - 1]!.createdAt < comment.createdAt),
    'strictly increasing times',
  )
  t.same(seen[1]!.parentId, seen[0]!.id, 'a reply names its top-level comment')

  const empty = await createPostRecord(app, { author: author })
  const none = await app.inject({ method: 'GET', url: `/posts/${empty.id}/comments` })
  t.match(none.json(), { data: [], meta: { page: { limit: 20, nextCursor: null } } })
  const forged = await app.inject({ method: 'GET', url: `/posts/${post.id}/comments?cursor=bm9wZQ` })
  t.equal(forged.statusCode, 400)
  t.match(forged.json().error.details, [{ path: '/query/cursor' }])
  const missing = await app.inject({ method: 'GET', url: `/posts/${UNKNOWN_ID}/comments` })
  t.equal(missing.statusCode, 404)
  t.equal(missing.json().error.code, 'POST_NOT_FOUND')
  t.equal((await app.inject({ method: 'GET', url: '/posts/not-a-uuid/comments' })).statusCode, 400)
})

t.test('createComment: one level of replies, on the same post only', async (t) => {
  const app = await build(t)
  const [author, reader] = [await registerUser(app), await registerUser(app)]
  const post = await createPostRecord(app, { author: author })
  const otherPost = await createPostRecord(app, { author: author })
  const reply = (parentId: string | null, postId = post.id) =>
    app.inject({
      method: 'POST',
      url: `/posts/${postId}/comments`,
      headers: reader.auth,
      payload: { body: 'Reply', parentId },
    })

  const top = await createComment(app, author, post.id, { body: 'Beautiful photos!' })
  t.match(top, { postId: post.id, parentId: null, body: 'Beautiful photos!' })
  const first = await reply(top.id)
  t.equal(first.statusCode, 201)
  t.match(first.json().data, { parentId: top.id, author: { id: reader.id, name: 'Test user' } })
  t.equal((await reply(null)).json().data.parentId, null, 'parentId null: a top-level comment')

  for (const [why, parentId, postId] of [
    ['a reply to a reply', first.json().data.id, post.id],
    ['a parent on another post', top.id, otherPost.id],
    ['a parent that does not exist', UNKNOWN_ID, post.id],
  ]) {
    const refused = await reply(parentId!, postId)
    t.equal(refused.statusCode, 422, why)
    t.match(refused.json().error, { code: 'PARENT_COMMENT_INVALID', details: [{ path: '/body/parentId' }] }, why)
  }
  const missingPost = await reply(null, UNKNOWN_ID)
  t.equal(missingPost.statusCode, 404)
  t.equal(missingPost.json().error.code, 'POST_NOT_FOUND')
})

t.test('comments on drafts: 404 to a stranger, 409 to the post author', async (t) => {
  const app = await build(t)
  const [author, stranger] = [await registerUser(app), await registerUser(app)]
  for (const status of ['draft', 'scheduled'] as const) {
    const post = await createPostRecord(app, { author: author, status })
    const byStranger = await app.inject({
      method: 'POST',
      url: `/posts/${post.id}/comments`,
      headers: stranger.auth,
      payload: { body: 'Hi' },
    })
    t.equal(byStranger.statusCode, 404, `${status}: a stranger cannot tell it exists`)
    t.equal(byStranger.json().error.code, 'POST_NOT_FOUND')
    const byAuthor = await app.inject({
      method: 'POST',
      url: `/posts/${post.id}/comments`,
      headers: author.auth,
      payload: { body: 'Hi' },
    })
    t.equal(byAuthor.statusCode, 409, `${status}: its author learns why`)
    t.equal(byAuthor.json().error.code, 'POST_NOT_PUBLISHED')
  }
})

t.test('updateComment rewords; bodies with unknown fields are 400 naming the field', async (t) => {
  const app = await build(t)
  const reader = await registerUser(app)
  const post = await createPostRecord(app, { author: reader })
  const comment = await createComment(app, reader, post.id, { body: 'Frist!' })
  const edit = (payload: Record<string, unknown>, id = comment.id) =>
    app.inject({ method: 'PATCH', url: `/comments/${id}`, headers: reader.auth, payload })

  const edited = await edit({ body: 'First!' })
  t.equal(edited.statusCode, 200)
  const data = edited.json().data
  t.match(data, { id: comment.id, body: 'First!', parentId: null })
  t.ok(data.updatedAt > data.createdAt, 'updatedAt moves, createdAt stays')

  for (const field of ['parentId', 'postId', 'authorId']) {
    const refused = await edit({ body: 'X', [field]: UNKNOWN_ID })
    t.equal(refused.statusCode, 400, `updateComment: ${field}`)
    t.match(refused.json().error.details, [{ path: `/body/${field}`, code: 'additionalProperties' }])
  }
  for (const field of ['postId', 'authorId', 'createdAt']) {
    const refused = await app.inject({
      method: 'POST',
      url: `/posts/${post.id}/comments`,
      headers: reader.auth,
      payload: { body: 'X', [field]: UNKNOWN_ID },
    })
    t.equal(refused.statusCode, 400, `createComment: ${field}`)
    t.match(refused.json().error.details, [{ path: `/body/${field}`, code: 'additionalProperties' }])
  }
  t.match((await edit({})).json().error.details, [{ path: '/body/body', code: 'required' }])
  t.match((await edit({ body: '   ' })).json().error.details, [{ path: '/body/body' }], 'a blank body')
  t.match((await edit({ body: 'x'.repeat(5001) })).json().error.details, [{ path: '/body/body', code: 'maxLength' }])
  t.equal((await edit({ body: 'x' }, UNKNOWN_ID)).json().error.code, 'COMMENT_NOT_FOUND')
  t.equal((await edit({ body: 'x' }, 'not-a-uuid')).statusCode, 400)
})
