// The rights table for comments: every operation × every kind of caller, on a published post and
// on one that is no longer published (a draft: it exists only for its author and admins).
import t from 'tap'
import { build } from '../../helpers/build.ts'
import { registerAdmin, registerUser } from '../../helpers/accounts.ts'
import { createComment, createPostRecord } from '../../helpers/content.ts'

type Caller = 'anonymous' | 'another user' | 'comment author' | 'post author' | 'admin'
type PostState = 'published' | 'draft'
const callers: Caller[] = ['anonymous', 'another user', 'comment author', 'post author', 'admin']

const table: Record<string, Record<PostState, Record<Caller, number>>> = {
  listComments: {
    published: { anonymous: 200, 'another user': 200, 'comment author': 200, 'post author': 200, admin: 200 },
    draft: { anonymous: 404, 'another user': 404, 'comment author': 404, 'post author': 200, admin: 200 },
  },
  // Commenting needs a published post: its author and admins see the draft, so they get 409.
  createComment: {
    published: { anonymous: 401, 'another user': 201, 'comment author': 201, 'post author': 201, admin: 201 },
    draft: { anonymous: 401, 'another user': 404, 'comment author': 404, 'post author': 409, admin: 409 },
  },
  // Only the comment's author rewords it; admins and the post's author may not.
  updateComment: {
    published: { anonymous: 401, 'another user': 403, 'comment author': 200, 'post author': 403, admin: 403 },
    draft: { anonymous: 401, 'another user': 404, 'comment author': 404, 'post author': 403, admin: 403 },
  },
  deleteComment: {
    published: { anonymous: 401, 'another user': 403, 'comment author': 204, 'post author': 204, admin: 204 },
    draft: { anonymous: 401, 'another user': 404, 'comment author': 404, 'post author': 204, admin: 204 },
  },
}

/** The code each refusal carries: operations on a comment id hide it as COMMENT_NOT_FOUND. */
const errorCodes = (operation: string): Record<number, string> => ({
  401: 'UNAUTHENTICATED',
  403: 'FORBIDDEN',
  404: operation === 'updateComment' || operation === 'deleteComment' ? 'COMMENT_NOT_FOUND' : 'POST_NOT_FOUND',
  409: 'POST_NOT_PUBLISHED',
})

t.test('every comment operation × caller × post state', async (t) => {
  const app = await build(t)
  const [postAuthor, commenter, stranger, admin] = [
    await registerUser(app),
    await registerUser(app),
    await registerUser(app),
    await registerAdmin(app),
  ]
  const headersOf: Record<Caller, Record<string, string>> = {
    anonymous: {},
    'another user': stranger.auth,
    'comment author': commenter.auth,
    'post author': postAuthor.auth,
    admin: admin.auth,
  }
  for (const [operation, expectations] of Object.entries(table)) {
    for (const state of ['published', 'draft'] as const) {
      for (const caller of callers) {
        // A fresh post and comment per cell: a successful delete must not decide the next cell.
        const post = await createPostRecord(app, { author: postAuthor })
        const comment = await createComment(app, commenter, post.id)
        if (state === 'draft')
          await app.services.database.prisma.post.update({
            where: { id: post.id },
            data: { status: 'draft', publishedAt: null },
          })
        const headers = headersOf[caller]
        const response =
          operation === 'listComments'
            ? await app.inject({ method: 'GET', url: `/posts/${post.id}/comments`, headers })
            : operation === 'createComment'
              ? await app.inject({
                  method: 'POST',
                  url: `/posts/${post.id}/comments`,
                  headers,
                  payload: { body: 'Hi' },
                })
              : operation === 'updateComment'
                ? await app.inject({
                    method: 'PATCH',
                    url: `/comments/${comment.id}`,
                    headers,
                    payload: { body: 'Edited' },
                  })
                : await app.inject({ method: 'DELETE', url: `/comments/${comment.id}`, headers })
        const expected = expectations[state][caller]
        t.equal(response.statusCode, expected, `${operation} on a ${state} post by ${caller}`)
        const code = errorCodes(operation)[expected]
        if (code !== undefined)
          t.equal(response.json().error.code, code, `${operation} on a ${state} post by ${caller}: ${code}`)
      }
    }
  }
})
