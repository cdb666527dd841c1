// A post's `html` over HTTP: rendered when the body is written, stored, and the same in every
// answer that carries the post; refused when it would pass its bound; never executable.
import t from 'tap'
import { renderMarkdown } from '../../../src/content/html/markdown.ts'
import { registerUser } from '../../helpers/accounts.ts'
import { build } from '../../helpers/build.ts'
import { unsafeParts } from '../../helpers/html-safety.ts'
import { createPost } from '../../helpers/posts.ts'
import { blowUp } from '../html/pathological-bodies.ts'
import { MARKDOWN_VECTORS } from '../html/xss-vectors.ts'

const BODY = '# Packing\n\n| item | kg |\n|:-----|---:|\n| tent | 2 |\n\nSee [the list](https://example.com/list).'
const HTML =
  '<h1>Packing</h1>\n<table>\n<thead>\n<tr>\n<th style="text-align:left">item</th>\n' +
  '<th style="text-align:right">kg</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td style="text-align:left">tent</td>\n' +
  '<td style="text-align:right">2</td>\n</tr>\n</tbody>\n</table>\n' +
  '<p>See <a href="https://example.com/list" rel="nofollow ugc noopener">the list</a>.</p>\n'

t.test('createPost renders the body; getPost and listPosts send the stored html', async (t) => {
  const app = await build(t)
  const author = await registerUser(app)
  const post = await createPost(app, author, { body: BODY, status: 'published' })
  t.equal(post.html, HTML)

  t.equal((await app.inject({ method: 'GET', url: `/posts/${post.id}` })).json().data.html, HTML, 'getPost')
  const listed = (await app.inject({ method: 'GET', url: `/posts?author=${author.id}` })).json().data
  t.same(
    listed.map((item: { html: string }) => item.html),
    [HTML],
    'listPosts',
  )
  const stored = await app.services.database.prisma.post.findUniqueOrThrow({ where: { id: post.id } })
  t.equal(stored.html, HTML, 'stored beside the body')
})

t.test('updatePost renders a new body, and only a new body', async (t) => {
  const app = await build(t)
  const author = await registerUser(app)
  const post = await createPost(app, author, { body: 'First *version*.' })
  const update = (payload: object) =>
    app.inject({ method: 'PATCH', url: `/posts/${post.id}`, headers: author.auth, payload })

  t.equal((await update({ body: 'Second **version**.' })).json().data.html, '<p>Second <strong>version</strong>.</p>\n')
  t.equal((await update({ title: 'Retitled' })).json().data.html, '<p>Second <strong>version</strong>.</p>\n')

  // A new body that renders to the same HTML (white space at its end): the database's trigger
  // takes such an edit for one by a writer that does not render and drops html; the service
  // writes it again.
  const same = await update({ body: 'Second **version**.\n\n\n' })
  t.equal(same.json().data.html, '<p>Second <strong>version</strong>.</p>\n')
  const read = await app.inject({ method: 'GET', url: `/posts/${post.id}`, headers: author.auth })
  t.equal(read.json().data.html, same.json().data.html)
  const stored = await app.services.database.prisma.post.findUniqueOrThrow({ where: { id: post.id } })
  t.equal(stored.html, '<p>Second <strong>version</strong>.</p>\n', 'html kept in the database')
})

t.test('a body whose HTML would pass the bound is refused on /body/body', async (t) => {
  const app = await build(t)
  const author = await registerUser(app)
  const body = blowUp(100_000)
  t.same(renderMarkdown(body), { tooLarge: true }, 'the body is one the renderer refuses')

  const created = await app.inject({
    method: 'POST',
    url: '/posts',
    headers: author.auth,
    payload: { title: 'x', body },
  })
  t.equal(created.statusCode, 400)
  t.match(created.json().error, {
    code: 'VALIDATION_FAILED',
    details: [{ path: '/body/body', message: 'renders to more than 1000000 bytes of HTML' }],
  })

  const post = await createPost(app, author)
  const updated = await app.inject({
    method: 'PATCH',
    url: `/posts/${post.id}`,
    headers: author.auth,
    payload: { body },
  })
  t.equal(updated.statusCode, 400)
  t.match(updated.json().error.details, [{ path: '/body/body' }])

  // Who may change the post is answered before anything is rendered.
  const other = await registerUser(app, 'other')
  const foreign = await app.inject({
    method: 'PATCH',
    url: `/posts/${post.id}`,
    headers: other.auth,
    payload: { body },
  })
  t.equal(foreign.statusCode, 404, "another user's draft does not exist for them")
})

t.test('no vector of the corpus comes back executable over HTTP', async (t) => {
  const app = await build(t)
  const author = await registerUser(app)
  const post = await createPost(app, author, { body: MARKDOWN_VECTORS.join('\n\n') })
  const html = (await app.inject({ method: 'GET', url: `/posts/${post.id}`, headers: author.auth })).json().data.html
  t.ok(html.length > 1000, 'rendered')
  t.same(unsafeParts(html), [])
})
