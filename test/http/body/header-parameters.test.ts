// Header parameters are validated against the spec as query and path parameters are: Node hands
// headers over with lower-case names, and the spec names them as they are written
// (`If-None-Match`); the names are matched, so a header past its documented bound is 400 naming it.
import t from 'tap'
import { registerUser } from '../../helpers/accounts.ts'
import { build } from '../../helpers/build.ts'
import { createPost } from '../../helpers/posts.ts'

t.test('a header parameter past its maxLength is 400 on /headers/<name>', async (t) => {
  const app = await build(t)
  const author = await registerUser(app)
  const post = await createPost(app, author, { status: 'published' })
  const cases = [
    { method: 'GET', url: `/posts/${post.id}`, header: 'if-none-match', max: 200 },
    { method: 'PATCH', url: `/posts/${post.id}`, header: 'if-match', max: 200, payload: { title: 'x' } },
    { method: 'GET', url: '/feed.atom', header: 'if-modified-since', max: 100 },
  ] as const
  for (const { method, url, header, max, ...rest } of cases) {
    const send = (value: string) =>
      app.inject({ method, url, headers: { ...author.auth, [header]: value }, ...('payload' in rest ? rest : {}) })
    const long = await send('"x"'.padEnd(max + 1, 'x'))
    t.equal(long.statusCode, 400, `${header}: ${max + 1} characters`)
    t.same(long.json().error.details[0]?.path, `/headers/${header}`)
    t.not((await send('"x"'.padEnd(max, 'x'))).statusCode, 400, `${header}: ${max} characters pass`)
  }
})
