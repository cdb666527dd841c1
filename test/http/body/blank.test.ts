// Blank text over HTTP: text with nothing visible in it — white space, zero-width spaces and joiners,
// other invisible format characters — is refused wherever the text is what the resource is (a post's
// title and body, a comment, a category's or a user's name), and text with something visible is not.
import t from 'tap'
import { build } from '../../helpers/build.ts'
import { registerAdmin, registerUser, uniqueEmail } from '../../helpers/accounts.ts'
import { createCategory, createComment, uniqueSlug } from '../../helpers/content.ts'
import { createPost } from '../../helpers/posts.ts'

/** Each renders as nothing: zero-width space, joiners, word joiner, BOM, soft hyphen, bidi marks, Hangul filler, braille blank, a tag. */
const INVISIBLE = [
  '\u200b',
  '\u200c\u200d',
  '\u2060',
  '\ufeff',
  '\u00ad',
  '\u200e\u200f\u202a\u202c\u2066\u2069',
  '\u3164',
  '\u2800',
  '\u{e0020}',
  ' \u200b\t\u2060\n',
]
/** Visible text that holds invisible characters too: accepted as written. */
const VISIBLE = ['a\u200b', '👩\u200d💻', '\u2060x\u2060']

t.test('text of invisible characters only is blank everywhere the service checks for blank', async (t) => {
  const app = await build(t)
  const [author, admin] = [await registerUser(app), await registerAdmin(app)]
  const post = await createPost(app, author, { status: 'published' })
  // The edited comment on a post of its own: on `post`, the same text as the comment just created
  // there would be 409 DUPLICATE_COMMENT, not the blank check under test.
  const comment = await createComment(app, author, (await createPost(app, author, { status: 'published' })).id)
  const category = await createCategory(app, admin)

  const attempts = (text: string) =>
    [
      {
        what: 'post title',
        path: '/body/title',
        request: { method: 'POST', url: '/posts', headers: author.auth, payload: { title: text, body: 'B' } },
      },
      {
        what: 'post body',
        path: '/body/body',
        request: { method: 'POST', url: '/posts', headers: author.auth, payload: { title: 'T', body: text } },
      },
      {
        what: 'edited post title',
        path: '/body/title',
        request: { method: 'PATCH', url: `/posts/${post.id}`, headers: author.auth, payload: { title: text } },
      },
      {
        what: 'edited post body',
        path: '/body/body',
        request: { method: 'PATCH', url: `/posts/${post.id}`, headers: author.auth, payload: { body: text } },
      },
      {
        what: 'comment',
        path: '/body/body',
        request: { method: 'POST', url: `/posts/${post.id}/comments`, headers: author.auth, payload: { body: text } },
      },
      {
        what: 'edited comment',
        path: '/body/body',
        request: { method: 'PATCH', url: `/comments/${comment.id}`, headers: author.auth, payload: { body: text } },
      },
      {
        what: 'category name',
        path: '/body/name',
        request: {
          method: 'POST',
          url: '/categories',
          headers: admin.auth,
          payload: { name: text, slug: uniqueSlug() },
        },
      },
      {
        what: 'renamed category',
        path: '/body/name',
        request: { method: 'PATCH', url: `/categories/${category.id}`, headers: admin.auth, payload: { name: text } },
      },
      {
        what: 'user name',
        path: '/body/name',
        request: {
          method: 'POST',
          url: '/register',
          payload: { email: uniqueEmail(), password: 'password-123456', name: text },
        },
      },
      {
        what: 'renamed user',
        path: '/body/name',
        request: { method: 'PATCH', url: '/me', headers: author.auth, payload: { name: text } },
      },
    ] as const

  for (const text of INVISIBLE) {
    for (const { what, path, request } of attempts(text)) {
      const response = await app.inject(request)
      t.equal(response.statusCode, 400, `${what} of ${JSON.stringify(text)} refused`)
      t.match(response.json().error, { code: 'VALIDATION_FAILED', details: [{ path, message: 'must not be blank' }] })
    }
  }
  for (const text of VISIBLE) {
    for (const { what, request } of attempts(text)) {
      const response = await app.inject(request)
      t.ok(response.statusCode === 200 || response.statusCode === 201, `${what} of ${JSON.stringify(text)} accepted`)
    }
  }
})
