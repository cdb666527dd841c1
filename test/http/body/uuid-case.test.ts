// An id is a UUID, which the spec accepts in either case: validation hands it on in lower case,
// the spelling the database returns, so that no handler, rule or cache compares two spellings of
// one id. Every id below is sent in capitals, in the path, the query and the body.
import t from 'tap'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { handlers } from '../../../src/handlers/index.ts'
import type { HandlerMap } from '../../../src/http/operations.ts'
import { build } from '../../helpers/build.ts'
import { registerAdmin, registerUser } from '../../helpers/accounts.ts'
import { createCategory, createComment } from '../../helpers/content.ts'
import { createPost } from '../../helpers/posts.ts'

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi

/** Every handler, recording the UUIDs it is given in its path, query and body. */
function recording(seen: string[]): Partial<HandlerMap> {
  const wrap =
    (handler: (request: FastifyRequest, reply: FastifyReply) => unknown) =>
    (request: FastifyRequest, reply: FastifyReply) => {
      seen.push(...(JSON.stringify([request.params, request.query, request.body]).match(UUID) ?? []))
      return handler(request, reply)
    }
  return Object.fromEntries(
    Object.entries(handlers).map(([name, handler]) => [name, wrap(handler as never)]),
  ) as Partial<HandlerMap>
}

t.test('ids in capitals reach the handlers in lower case, and act as in lower case', async (t) => {
  const seen: string[] = []
  const app = await build(t, {}, { handlers: recording(seen) })
  const user = await registerUser(app)
  const admin = await registerAdmin(app)
  const category = await createCategory(app, admin)
  const sent = new Set<string>()
  const up = (id: string) => {
    sent.add(id)
    return id.toUpperCase()
  }

  t.test('an admin cannot change their own role, however their id is spelt', async (t) => {
    for (const id of [admin.id, up(admin.id)]) {
      const self = await app.inject({
        method: 'PATCH',
        url: `/users/${id}`,
        headers: admin.auth,
        payload: { role: 'user' },
      })
      t.equal(self.statusCode, 403, id)
      t.equal(self.json().error.code, 'FORBIDDEN')
    }
    t.equal((await app.inject({ method: 'GET', url: '/users', headers: admin.auth })).statusCode, 200, 'still an admin')
  })

  t.test('a user lists their own drafts by their id in capitals', async (t) => {
    const draft = await createPost(app, user, { title: 'Mine' })
    const list = await app.inject({
      method: 'GET',
      url: `/posts?status=draft&author=${up(user.id)}&limit=100`,
      headers: user.auth,
    })
    t.equal(list.statusCode, 200)
    t.ok(
      list.json().data.some((post: { id: string }) => post.id === draft.id),
      'the draft is listed',
    )
  })

  t.test('posts, comments and categories by ids in capitals', async (t) => {
    const post = await createPost(app, user, { status: 'published', categoryIds: [up(category.id)] })
    t.same(post.categories, [{ id: category.id, name: category.name, slug: category.slug }], 'filed under the category')
    t.equal((await app.inject({ method: 'GET', url: `/posts/${up(post.id)}` })).json().data.id, post.id)
    const patched = await app.inject({
      method: 'PATCH',
      url: `/posts/${up(post.id)}`,
      headers: user.auth,
      payload: { title: 'Renamed' },
    })
    t.equal(patched.json().data.title, 'Renamed')
    const comment = await createComment(app, user, up(post.id))
    t.equal(comment.postId, post.id)
    const reply = await createComment(app, user, up(post.id), { parentId: up(comment.id) })
    t.equal(reply.parentId, comment.id)
    t.equal(
      (
        await app.inject({
          method: 'PATCH',
          url: `/comments/${up(reply.id)}`,
          headers: user.auth,
          payload: { body: 'Edited' },
        })
      ).statusCode,
      200,
    )
    t.equal(
      (await app.inject({ method: 'DELETE', url: `/comments/${up(reply.id)}`, headers: user.auth })).statusCode,
      204,
    )
    const renamed = await app.inject({
      method: 'PATCH',
      url: `/categories/${up(category.id)}`,
      headers: admin.auth,
      payload: { name: 'Renamed category' },
    })
    t.equal(renamed.json().data.id, category.id)
    const listed = await app.inject({ method: 'GET', url: `/posts?author=${up(user.id)}&limit=100` })
    t.ok(
      listed.json().data.some((each: { id: string }) => each.id === post.id),
      'listed by author id in capitals',
    )
    // The category filter takes an id or a slug: an id in capitals is the id; a slug stays lower case.
    const inCategory = await app.inject({ method: 'GET', url: `/posts?category=${up(category.id)}&limit=100` })
    t.equal(inCategory.statusCode, 200, 'category filter by id in capitals')
    t.same(
      inCategory.json().data.map((each: { id: string }) => each.id),
      [post.id],
      "the category's posts",
    )
    const slugInCapitals = await app.inject({ method: 'GET', url: `/posts?category=${category.slug.toUpperCase()}` })
    t.match(
      slugInCapitals.json(),
      { error: { code: 'VALIDATION_FAILED', details: [{ path: '/query/category' }] } },
      'a slug is lower case',
    )
    t.equal((await app.inject({ method: 'DELETE', url: `/posts/${up(post.id)}`, headers: user.auth })).statusCode, 204)
    t.equal(
      (await app.inject({ method: 'DELETE', url: `/categories/${up(category.id)}`, headers: admin.auth })).statusCode,
      204,
    )
  })

  t.test('no handler ever saw a capital letter in an id', async (t) => {
    t.same(
      [...sent].filter((id) => !seen.includes(id)),
      [],
      `each of the ${sent.size} ids sent in capitals was seen`,
    )
    t.same(
      seen.filter((id) => id !== id.toLowerCase()),
      [],
      'in lower case only',
    )
  })
})
