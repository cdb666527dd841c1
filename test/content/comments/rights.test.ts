// The rights table for comments: every operation × every kind of caller, on a published post and
// on one that is no longer published (a draft: it exists only for its author and admins).
import t from 'tap'
import { build } from '../../helpers/build.ts'
import { registerAdmin, registerUser } from '../../helpers/accounts.ts'
import { commentCounts, createComment, createPostRecord } from '../../helpers/content.ts'
import { createApiToken, type Scope } from '../../helpers/api-tokens.ts'

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

// Moderation. moderateComment: admins set any status; a post's author hides a published comment on
// their post and shows a hidden one again, nothing else; anyone else who can see the comment gets
// 403, and a comment that does not exist for them (not published and not theirs, or on a draft) 404.
// listCommentsForModeration: admins only. API tokens act as their owner with the scope the spec
// lists (content:write to moderate, admin to list), and any other scope is 403 INSUFFICIENT_SCOPE.
type Moderator =
  | Caller
  | "post author's content:write token"
  | "post author's content:read token"
  | "admin's content:write token"
  | "admin's admin token"
const moderators: Moderator[] = [
  ...callers,
  "post author's content:write token",
  "post author's content:read token",
  "admin's content:write token",
  "admin's admin token",
]
type Status = 'published' | 'pending' | 'hidden' | 'spam'
/** `setBy`: who put the comment in `from` (the admin, unless the post's author hid it themselves). */
type Change = { from: Status; to: Status; post: PostState; setBy: 'admin' | 'post author' }
const change = (from: Status, to: Status, post: PostState = 'published', setBy: Change['setBy'] = 'admin'): Change => ({
  from,
  to,
  post,
  setBy,
})

const asOwner = (expected: { user: number; postAuthor: number; admin: number; stranger: number }) =>
  ({
    anonymous: 401,
    'another user': expected.stranger,
    'comment author': expected.user,
    'post author': expected.postAuthor,
    admin: expected.admin,
    "post author's content:write token": expected.postAuthor,
    "post author's content:read token": 403,
    "admin's content:write token": expected.admin,
    "admin's admin token": 403,
  }) satisfies Record<Moderator, number>

const moderation: [Change, Record<Moderator, number>][] = [
  [change('published', 'hidden'), asOwner({ stranger: 403, user: 403, postAuthor: 200, admin: 200 })],
  // The post's author shows again what they hid; what an admin hid stays the admin's decision.
  [
    change('hidden', 'published', 'published', 'post author'),
    asOwner({ stranger: 404, user: 403, postAuthor: 200, admin: 200 }),
  ],
  [change('hidden', 'published'), asOwner({ stranger: 404, user: 403, postAuthor: 403, admin: 200 })],
  // Approving and spam are the site's call: the post's author sees the comment but may not.
  [change('pending', 'published'), asOwner({ stranger: 404, user: 403, postAuthor: 403, admin: 200 })],
  [change('pending', 'spam'), asOwner({ stranger: 404, user: 403, postAuthor: 403, admin: 200 })],
  [change('published', 'spam'), asOwner({ stranger: 403, user: 403, postAuthor: 403, admin: 200 })],
  [change('spam', 'published'), asOwner({ stranger: 404, user: 403, postAuthor: 403, admin: 200 })],
  [change('hidden', 'pending'), asOwner({ stranger: 404, user: 403, postAuthor: 403, admin: 200 })],
  // On a draft the comment exists only for the post's author and admins.
  [change('published', 'hidden', 'draft'), asOwner({ stranger: 404, user: 404, postAuthor: 200, admin: 200 })],
]

const moderationCodes: Record<number, string> = { 401: 'UNAUTHENTICATED', 404: 'COMMENT_NOT_FOUND' }
/** The tokens whose scope the operation does not list: 403 INSUFFICIENT_SCOPE before their owner's rights are asked. */
const WRONG_SCOPE: Record<'moderateComment' | 'listCommentsForModeration', Moderator[]> = {
  moderateComment: ["post author's content:read token", "admin's admin token"],
  listCommentsForModeration: [
    "post author's content:write token",
    "post author's content:read token",
    "admin's content:write token",
  ],
}

t.test('moderateComment and listCommentsForModeration × caller, API tokens by scope', async (t) => {
  const app = await build(t)
  const [postAuthor, commenter, stranger, admin] = [
    await registerUser(app),
    await registerUser(app),
    await registerUser(app),
    await registerAdmin(app),
  ]
  const token = async (owner: typeof admin, scope: Scope) =>
    (await createApiToken(app, owner, { name: scope, scopes: [scope] })).auth
  const headersOf: Record<Moderator, Record<string, string>> = {
    anonymous: {},
    'another user': stranger.auth,
    'comment author': commenter.auth,
    'post author': postAuthor.auth,
    admin: admin.auth,
    "post author's content:write token": await token(postAuthor, 'content:write'),
    "post author's content:read token": await token(postAuthor, 'content:read'),
    "admin's content:write token": await token(admin, 'content:write'),
    "admin's admin token": await token(admin, 'admin'),
  }
  const setStatus = (id: string, status: Status, headers: Record<string, string>) =>
    app.inject({ method: 'PATCH', url: `/comments/${id}/status`, headers, payload: { status } })

  t.test('moderateComment', async (t) => {
    const published = await createPostRecord(app, { author: postAuthor })
    for (const [{ from, to, post: state, setBy }, expectations] of moderation) {
      for (const caller of moderators) {
        // A fresh comment per cell (and a fresh post for a draft): a change must not decide the next cell.
        const post = state === 'published' ? published : await createPostRecord(app, { author: postAuthor })
        const comment = await createComment(app, commenter, post.id)
        const setter = setBy === 'admin' ? admin.auth : postAuthor.auth
        if (from !== 'published') t.equal((await setStatus(comment.id, from, setter)).statusCode, 200)
        if (state === 'draft')
          await app.services.database.prisma.post.update({
            where: { id: post.id },
            data: { status: 'draft', publishedAt: null },
          })
        const name = `${from} (by ${setBy}) → ${to} on a ${state} post by ${caller}`
        const response = await setStatus(comment.id, to, headersOf[caller])
        const expected = expectations[caller]
        t.equal(response.statusCode, expected, name)
        if (expected === 200) t.equal(response.json().data.status, to, `${name}: the comment in its new status`)
        const code =
          expected === 403
            ? WRONG_SCOPE.moderateComment.includes(caller)
              ? 'INSUFFICIENT_SCOPE'
              : 'FORBIDDEN'
            : moderationCodes[expected]
        if (code !== undefined) t.equal(response.json().error.code, code, `${name}: ${code}`)
        const counts = await commentCounts(app, post.id)
        t.equal(counts.stored, counts.actual, `${name}: the count is exact`)
      }
    }
  })

  t.test('listCommentsForModeration', async (t) => {
    const expectations: Record<Moderator, number> = {
      anonymous: 401,
      'another user': 403,
      'comment author': 403,
      'post author': 403,
      admin: 200,
      "post author's content:write token": 403,
      "post author's content:read token": 403,
      "admin's content:write token": 403,
      "admin's admin token": 200,
    }
    for (const caller of moderators) {
      const response = await app.inject({ method: 'GET', url: '/comments', headers: headersOf[caller] })
      const expected = expectations[caller]
      t.equal(response.statusCode, expected, `listCommentsForModeration by ${caller}`)
      const code =
        expected === 401
          ? 'UNAUTHENTICATED'
          : WRONG_SCOPE.listCommentsForModeration.includes(caller)
            ? 'INSUFFICIENT_SCOPE'
            : 'FORBIDDEN'
      if (expected !== 200) t.equal(response.json().error.code, code, `listCommentsForModeration by ${caller}: ${code}`)
    }
  })
})
