// The rights table for media items: getMedia, updateMedia and deleteMedia × every kind of caller, on
// an item no post shows, one a draft shows and one a published post shows. A post shows the item
// because its body refers to it: createPost writes post_media with the html.
import t from 'tap'
import { build } from '../../helpers/build.ts'
import { registerAdmin, registerUser, type Account } from '../../helpers/accounts.ts'
import { createPost } from '../../helpers/posts.ts'
import { createMedia } from '../../helpers/media.ts'

type Caller = 'anonymous' | 'another user' | 'owner' | 'admin'
type Use = 'unused' | 'in a draft' | 'in a published post'
const callers: Caller[] = ['anonymous', 'another user', 'owner', 'admin']
const uses: Use[] = ['unused', 'in a draft', 'in a published post']

// Reading follows the item's use; changing never does. deleteMedia of an item in use is 409 without force.
const table: Record<string, Record<Use, Record<Caller, number>>> = {
  getMedia: {
    unused: { anonymous: 404, 'another user': 404, owner: 200, admin: 200 },
    'in a draft': { anonymous: 404, 'another user': 404, owner: 200, admin: 200 },
    'in a published post': { anonymous: 200, 'another user': 200, owner: 200, admin: 200 },
  },
  updateMedia: {
    unused: { anonymous: 401, 'another user': 404, owner: 200, admin: 200 },
    'in a draft': { anonymous: 401, 'another user': 404, owner: 200, admin: 200 },
    'in a published post': { anonymous: 401, 'another user': 404, owner: 200, admin: 200 },
  },
  deleteMedia: {
    unused: { anonymous: 401, 'another user': 404, owner: 204, admin: 204 },
    'in a draft': { anonymous: 401, 'another user': 404, owner: 409, admin: 409 },
    'in a published post': { anonymous: 401, 'another user': 404, owner: 409, admin: 409 },
  },
}
const codes: Record<number, string> = { 401: 'UNAUTHENTICATED', 404: 'MEDIA_NOT_FOUND', 409: 'MEDIA_IN_USE' }

const request = (operation: string, id: string) =>
  operation === 'getMedia'
    ? { method: 'GET' as const, url: `/media/${id}` }
    : operation === 'updateMedia'
      ? { method: 'PATCH' as const, url: `/media/${id}`, payload: { alt: 'A photo' } }
      : { method: 'DELETE' as const, url: `/media/${id}` }

t.test('each operation × each caller × each use of the item', async (t) => {
  // 36 uploads by one owner: past the hourly allowance's default.
  const app = await build(t, { UPLOAD_RATE_PER_USER: '1000' })
  const owner = await registerUser(app, 'owner')
  const accounts: Record<Caller, Account | null> = {
    anonymous: null,
    'another user': await registerUser(app, 'other'),
    owner,
    admin: await registerAdmin(app),
  }
  for (const use of uses) {
    for (const [operation, row] of Object.entries(table)) {
      for (const caller of callers) {
        // A fresh item for each request: a delete that succeeds must not change the next row.
        const item = await createMedia(app, owner.auth)
        if (use !== 'unused') {
          const status = use === 'in a draft' ? 'draft' : 'published'
          const post = await createPost(app, owner, { status, body: `![A photo](${item.url})` })
          t.same(post.mediaIds, [item.id], `${operation}, ${caller}, item ${use}: the post shows it`)
        }
        const expected = row[use][caller]
        const response = await app.inject({ ...request(operation, item.id), headers: accounts[caller]?.auth ?? {} })
        const name = `${operation}, ${caller}, item ${use}`
        t.equal(response.statusCode, expected, name)
        if (codes[expected]) t.equal(response.json().error.code, codes[expected], `${name}: code`)
        if (expected === 200) t.equal(response.json().data.id, item.id, `${name}: the item`)
      }
    }
  }
})
