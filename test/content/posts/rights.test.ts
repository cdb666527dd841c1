// The rights table: every post write × anonymous, another user, the owner, an admin.
import t from 'tap'
import { build } from '../../helpers/build.ts'
import { registerAdmin, registerUser } from '../../helpers/accounts.ts'
import { createPost } from '../../helpers/posts.ts'

type Caller = 'anonymous' | 'another user' | 'owner' | 'admin'
const callers: Caller[] = ['anonymous', 'another user', 'owner', 'admin']

// Expected status per operation and caller, for a published post and for a draft.
const table: Record<string, { published: Record<Caller, number>; draft: Record<Caller, number> }> = {
  updatePost: {
    published: { anonymous: 401, 'another user': 403, owner: 200, admin: 200 },
    draft: { anonymous: 401, 'another user': 404, owner: 200, admin: 200 },
  },
  deletePost: {
    published: { anonymous: 401, 'another user': 403, owner: 204, admin: 204 },
    draft: { anonymous: 401, 'another user': 404, owner: 204, admin: 204 },
  },
}

t.test('createPost: anonymous 401, any signed-in user 201', async (t) => {
  const app = await build(t)
  const [user, admin] = [await registerUser(app), await registerAdmin(app)]
  const create = (headers = {}) =>
    app.inject({ method: 'POST', url: '/posts', headers, payload: { title: 'T', body: 'B' } })
  t.equal((await create()).statusCode, 401, 'anonymous')
  t.equal((await create(user.auth)).statusCode, 201, 'user')
  t.equal((await create(admin.auth)).statusCode, 201, 'admin')
})

t.test('updatePost and deletePost', async (t) => {
  const app = await build(t)
  const [owner, other, admin] = [await registerUser(app), await registerUser(app), await registerAdmin(app)]
  const headersOf: Record<Caller, Record<string, string>> = {
    anonymous: {},
    'another user': other.auth,
    owner: owner.auth,
    admin: admin.auth,
  }
  for (const [operation, expectations] of Object.entries(table)) {
    for (const status of ['published', 'draft'] as const) {
      for (const caller of callers) {
        // A fresh post per cell: a successful delete must not decide the next cell.
        const post = await createPost(app, owner, { status })
        const response =
          operation === 'updatePost'
            ? await app.inject({
                method: 'PATCH',
                url: `/posts/${post.id}`,
                headers: headersOf[caller],
                payload: { title: 'Changed' },
              })
            : await app.inject({ method: 'DELETE', url: `/posts/${post.id}`, headers: headersOf[caller] })
        t.equal(response.statusCode, expectations[status][caller], `${operation} on a ${status} post by ${caller}`)
      }
    }
  }
})
