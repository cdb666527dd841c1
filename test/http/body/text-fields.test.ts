// Text a client writes holds no C0 control character but tab, line feed and carriage return (the
// spec's `x-text` on each text field), and no JSON string holds a lone UTF-16 surrogate: either is
// 400 VALIDATION_FAILED with a detail naming the field. A control character costs six bytes in
// every JSON page that shows it (`\u0001`), and a lone surrogate was stored silently as U+FFFD.
import { randomUUID } from 'node:crypto'
import t from 'tap'
import { build } from '../../helpers/build.ts'
import { registerAdmin, registerUser } from '../../helpers/accounts.ts'
import { createPost } from '../../helpers/posts.ts'

const CONTROL_MESSAGE = 'must not contain control characters other than tab, line feed and carriage return'

t.test('every text field refuses C0 control characters but tab, LF and CR, naming the field', async (t) => {
  const app = await build(t)
  const [user, admin] = [await registerUser(app), await registerAdmin(app)]
  const post = await createPost(app, user, { status: 'published' })
  const comment = (
    await app.inject({ method: 'POST', url: `/posts/${post.id}/comments`, headers: user.auth, payload: { body: 'Hi' } })
  ).json().data as { id: string }
  const category = (
    await app.inject({ method: 'POST', url: '/categories', headers: admin.auth, payload: { name: 'Topic text' } })
  ).json().data as { id: string }
  // Bodies are validated before the handler runs: an endpoint that does not exist is as good.
  const webhook = { id: randomUUID() }
  const fields: [string, string, string, Record<string, string>, Record<string, unknown>, string][] = [
    ['POST', '/register', 'name', {}, { email: `c-${Date.now()}@example.com`, password: 'long-enough-1' }, 'name'],
    ['PATCH', '/me', 'name', user.auth, {}, 'name'],
    ['POST', '/posts', 'title', user.auth, { body: 'b' }, 'title'],
    ['POST', '/posts', 'body', user.auth, { title: 't' }, 'body'],
    ['POST', '/posts', 'excerpt', user.auth, { title: 't', body: 'b' }, 'excerpt'],
    ['PATCH', `/posts/${post.id}`, 'title', user.auth, {}, 'title'],
    ['PATCH', `/posts/${post.id}`, 'body', user.auth, {}, 'body'],
    ['PATCH', `/posts/${post.id}`, 'excerpt', user.auth, {}, 'excerpt'],
    ['POST', `/posts/${post.id}/comments`, 'body', user.auth, {}, 'body'],
    ['PATCH', `/comments/${comment.id}`, 'body', user.auth, {}, 'body'],
    ['POST', '/categories', 'name', admin.auth, {}, 'name'],
    ['PATCH', `/categories/${category.id}`, 'name', admin.auth, {}, 'name'],
    [
      'POST',
      '/webhooks',
      'description',
      admin.auth,
      { url: 'https://hooks.example.com/y', events: ['post.published'] },
      'description',
    ],
    ['PATCH', `/webhooks/${webhook.id}`, 'description', admin.auth, {}, 'description'],
  ]
  for (const [method, url, field, headers, rest] of fields) {
    for (const bad of ['\u0001', '\u0008', '\u000b', '\u000c', '\u001b', '\u001f']) {
      const response = await app.inject({
        method: method as 'POST',
        url,
        headers,
        payload: { ...rest, [field]: `a${bad}b` },
      })
      const body = response.json()
      t.equal(response.statusCode, 400, `${method} ${url} ${field} with U+${bad.charCodeAt(0).toString(16)}`)
      t.same(body.error?.details, [{ path: `/body/${field}`, message: CONTROL_MESSAGE, code: 'x-text' }])
    }
  }
  // Tab, line feed and carriage return are text.
  const ok = await app.inject({
    method: 'POST',
    url: '/posts',
    headers: user.auth,
    payload: { title: 'Tab\there', body: 'Line one\r\nline two\n\tindented', excerpt: 'a\tb' },
  })
  t.equal(ok.statusCode, 201, 'tab, LF and CR are accepted')
  t.equal(ok.json().data.body, 'Line one\r\nline two\n\tindented')
})

t.test('a lone UTF-16 surrogate in any JSON string is refused, naming the field; a pair is a character', async (t) => {
  const app = await build(t)
  const user = await registerUser(app)
  for (const lone of ['\ud800', '\udfff', 'a\udc00b', '\ud83d']) {
    const response = await app.inject({
      method: 'POST',
      url: '/posts',
      headers: { ...user.auth, 'content-type': 'application/json' },
      // JSON.stringify writes a lone surrogate as its escape (`"\ud800"`), as a client would send it.
      payload: JSON.stringify({ title: `t${lone}`, body: 'b' }),
    })
    t.equal(response.statusCode, 400, JSON.stringify(lone))
    t.same(response.json().error?.details, [
      { path: '/body/title', message: 'must not contain a lone UTF-16 surrogate', code: 'noLoneSurrogate' },
    ])
  }
  const login = await app.inject({
    method: 'POST',
    url: '/login',
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify({ email: user.email, password: `x\ud800` }),
  })
  t.equal(login.statusCode, 400, 'any string of a JSON body: a password too')
  t.same(login.json().error?.details?.[0]?.path, '/body/password')
  const emoji = await createPost(app, user, { title: 'Summit 🏔️', body: '😀 on top' })
  t.equal(emoji.title, 'Summit 🏔️', 'a surrogate pair is kept as written')
})
