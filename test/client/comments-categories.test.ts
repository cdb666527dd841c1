// Journeys of the `comments` and `categories` tags through the typed client on a real port.
import { randomUUID } from 'node:crypto'
import t from 'tap'
import { serve, signUp } from '../helpers/client.ts'

t.test('typed client journeys: comments, categories', async (t) => {
  const { app, client } = await serve(t)
  const author = await signUp(client, 'author')
  const reader = await signUp(client, 'reader')

  t.test('comments: comment, reply, list, edit, delete', async (t) => {
    const post = (
      await author.api.POST('/posts', {
        body: { title: 'Open for comments', body: 'Say something.', status: 'published' },
      })
    ).data!.data
    const params = { path: { id: post.id } }
    const comment = (await reader.api.POST('/posts/{id}/comments', { params, body: { body: 'First!' } })).data!.data
    const reply = await author.api.POST('/posts/{id}/comments', {
      params,
      body: { body: 'Thanks.', parentId: comment.id },
    })
    t.equal(reply.data?.data.parentId, comment.id)

    const list = await client().GET('/posts/{id}/comments', { params: { ...params, query: { limit: 10 } } })
    t.same(
      list.data?.data.map((item) => item.body),
      ['First!', 'Thanks.'],
    )
    const edited = await reader.api.PATCH('/comments/{id}', {
      params: { path: { id: comment.id } },
      body: { body: 'First, edited.' },
    })
    t.equal(edited.data?.data.body, 'First, edited.')
    t.equal(
      (await author.api.PATCH('/comments/{id}', { params: { path: { id: comment.id } }, body: { body: 'Not mine' } }))
        .error?.error.code,
      'FORBIDDEN',
    )
    t.equal(
      (await author.api.DELETE('/comments/{id}', { params: { path: { id: reply.data!.data.id } } })).response.status,
      204,
    )
    t.equal((await client().GET('/posts/{id}', { params })).data?.data.commentCount, 1)
  })

  t.test('categories: an admin creates, renames and deletes one; posts are filed and filtered by it', async (t) => {
    const admin = await signUp(client, 'admin')
    await app.services.auth.ensureAdmin(admin.email, null)
    const slug = `client-${randomUUID().slice(0, 8)}`
    t.equal((await author.api.POST('/categories', { body: { name: 'Not allowed' } })).error?.error.code, 'FORBIDDEN')
    const category = (await admin.api.POST('/categories', { body: { name: 'Typed clients', slug } })).data!.data

    const post = (
      await author.api.POST('/posts', {
        body: { title: 'Filed', body: 'In a category.', status: 'published', categoryIds: [category.id] },
      })
    ).data!.data
    const filed = await client().GET('/posts', { params: { query: { category: slug } } })
    t.same(
      filed.data?.data.map((item) => item.id),
      [post.id],
    )

    const renamed = await admin.api.PATCH('/categories/{id}', {
      params: { path: { id: category.id } },
      body: { name: 'Typed SDKs' },
    })
    t.equal(renamed.data?.data.name, 'Typed SDKs')
    const listed = await client().GET('/categories', { params: { query: { limit: 100 } } })
    t.ok(listed.data?.data.some((item) => item.id === category.id))
    t.equal(
      (await admin.api.DELETE('/categories/{id}', { params: { path: { id: category.id } } })).response.status,
      204,
    )
    const moved = await client().GET('/posts/{id}', { params: { path: { id: post.id } } })
    t.ok(
      moved.data?.data.categories.every((item) => item.id !== category.id),
      'the post moved out of the deleted category',
    )
  })
})
