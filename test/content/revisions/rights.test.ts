// Who sees and restores a post's revisions: its author and admins (and their API tokens with the
// scope), on every status; anyone else gets 404 POST_NOT_FOUND, as for drafts, even on a published
// post; a revision of another post is 404 REVISION_NOT_FOUND.
import t from 'tap'
import { registerAdmin, registerUser } from '../../helpers/accounts.ts'
import { createApiToken } from '../../helpers/api-tokens.ts'
import { build } from '../../helpers/build.ts'
import { createPost } from '../../helpers/posts.ts'
import { revisionsOf } from '../../helpers/revisions.ts'

t.test('rights table', async (t) => {
  const app = await build(t)
  const author = await registerUser(app, 'rev-rights')
  const stranger = await registerUser(app, 'rev-stranger')
  const admin = await registerAdmin(app)
  const authorToken = await createApiToken(app, author, { scopes: ['content:read', 'content:write'] })
  const strangerToken = await createApiToken(app, stranger, { scopes: ['content:read', 'content:write'] })
  const callers: [string, Record<string, string>, boolean][] = [
    ['author', author.auth, true],
    ['admin', admin.auth, true],
    ["author's API token", authorToken.auth, true],
    ['another user', stranger.auth, false],
    ["another user's API token", strangerToken.auth, false],
    ['anonymous', {}, false],
  ]
  for (const status of ['draft', 'published'] as const) {
    const post = await createPost(app, author, { status })
    const [revision] = await revisionsOf(app, post.id, author.auth)
    for (const [who, headers, allowed] of callers) {
      const name = `${who} on a ${status} post`
      const list = await app.inject({ method: 'GET', url: `/posts/${post.id}/revisions`, headers })
      const one = await app.inject({ method: 'GET', url: `/posts/${post.id}/revisions/${revision!.id}`, headers })
      const restored = await app.inject({
        method: 'POST',
        url: `/posts/${post.id}/revisions/${revision!.id}/restore`,
        headers,
      })
      if (allowed) {
        t.same([list.statusCode, one.statusCode, restored.statusCode], [200, 200, 200], name)
      } else {
        t.same([list.statusCode, list.json().error.code], [404, 'POST_NOT_FOUND'], `${name}: list`)
        t.same([one.statusCode, one.json().error.code], [404, 'POST_NOT_FOUND'], `${name}: get`)
        // Restoring needs a signed-in caller, as updatePost does: anonymous is 401 before anything is looked up.
        const expected = who === 'anonymous' ? [401, 'UNAUTHENTICATED'] : [404, 'POST_NOT_FOUND']
        t.same([restored.statusCode, restored.json().error.code], expected, `${name}: restore`)
      }
    }
  }

  const mine = await createPost(app, author)
  const others = await createPost(app, stranger)
  const [othersRevision] = await revisionsOf(app, others.id, stranger.auth)
  const url = `/posts/${mine.id}/revisions/${othersRevision!.id}`
  const crossed = await app.inject({ method: 'GET', url, headers: author.auth })
  t.same([crossed.statusCode, crossed.json().error.code], [404, 'REVISION_NOT_FOUND'], "another post's revision")
  const crossedRestore = await app.inject({ method: 'POST', url: `${url}/restore`, headers: admin.auth })
  t.same([crossedRestore.statusCode, crossedRestore.json().error.code], [404, 'REVISION_NOT_FOUND'])
  const badCursor = await app.inject({
    method: 'GET',
    url: `/posts/${mine.id}/revisions?cursor=OTk5OTk5OTk5OQ`,
    headers: author.auth,
  })
  t.same([badCursor.statusCode, badCursor.json().error.code], [400, 'VALIDATION_FAILED'], 'a forged cursor')
})
