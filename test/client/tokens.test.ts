// The `tokens` tag through the typed client on a real port, as an integration's owner and the
// integration use it: make a token with a session, use it for a read and a write, list it (no
// secret), page through an admin's list by owner, revoke it, and see it refused.
import t from 'tap'
import { serve, signUp } from '../helpers/client.ts'

t.test('typed client journey: tokens', async (t) => {
  const { app, client } = await serve(t)
  const owner = await signUp(client, 'tokens')
  const made = await owner.api.POST('/me/tokens', {
    body: { name: 'Static-site build', scopes: ['content:read', 'content:write'] },
  })
  t.equal(made.response.status, 201)
  const { token, id } = made.data!.data
  const integration = client(token)

  const post = await integration.POST('/posts', { body: { title: 'Built by CI', body: 'Hello.', status: 'draft' } })
  t.equal(post.data?.data.author.id, owner.user.id, 'a write, as its owner')
  const draft = await integration.GET('/posts/{id}', { params: { path: { id: post.data!.data.id } } })
  t.equal(draft.data?.data.status, 'draft', "a read of the owner's draft")
  t.equal((await integration.GET('/me')).error?.error.code, 'INSUFFICIENT_SCOPE', 'no account:read')
  t.equal((await integration.GET('/me/tokens')).error?.error.code, 'API_TOKEN_NOT_ALLOWED')

  const listed = await owner.api.GET('/me/tokens', { params: { query: { limit: 10 } } })
  t.same(
    listed.data?.data.map((each) => [each.id, each.prefix, 'token' in each]),
    [[id, token.slice(0, 12), false]],
  )

  const admin = await signUp(client, 'tokens-admin')
  await app.services.auth.ensureAdmin(admin.email, null)
  await owner.api.POST('/me/tokens', { body: { name: 'Newsletter', scopes: ['content:read'] } })
  const first = await admin.api.GET('/tokens', { params: { query: { userId: owner.user.id, limit: 1 } } })
  const cursor = first.data?.meta.page.nextCursor ?? undefined
  t.type(cursor, 'string', 'a page of one, and a cursor')
  const second = await admin.api.GET('/tokens', { params: { query: { userId: owner.user.id, limit: 1, cursor } } })
  t.same(
    second.data?.data.map((each) => each.id),
    [id],
    "the owner's first token on the second page",
  )

  t.equal((await owner.api.DELETE('/me/tokens/{id}', { params: { path: { id } } })).response.status, 204)
  t.equal((await integration.GET('/posts')).error?.error.code, 'API_TOKEN_INVALID', 'revoked: refused')
  const gone = await admin.api.DELETE('/tokens/{id}', { params: { path: { id } } })
  t.equal(gone.error?.error.code, 'API_TOKEN_NOT_FOUND')
})
