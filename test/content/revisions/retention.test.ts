// Retention: at most POST_REVISIONS_MAX revisions per post and POST_REVISIONS_MAX_BYTES of them,
// the oldest going first, except the newest and the last published one; 0 turns revisions off.
import t from 'tap'
import { registerUser } from '../../helpers/accounts.ts'
import { build } from '../../helpers/build.ts'
import { createPost } from '../../helpers/posts.ts'
import { revisionRows, revisionsOf } from '../../helpers/revisions.ts'

t.test('at the bound the oldest go, but the last published revision is kept', async (t) => {
  const app = await build(t, { POST_REVISIONS_MAX: '3' })
  const author = await registerUser(app, 'rev-retention')
  const post = await createPost(app, author, { title: 'Published once', status: 'published' })
  await app.inject({ method: 'PATCH', url: `/posts/${post.id}`, headers: author.auth, payload: { status: 'draft' } })
  for (let edit = 1; edit <= 5; edit++)
    await app.inject({
      method: 'PATCH',
      url: `/posts/${post.id}`,
      headers: author.auth,
      payload: { title: `Draft ${edit}` },
    })
  t.same(
    await revisionRows(app, post.id),
    [
      { number: 1, status: 'published' },
      { number: 5, status: 'draft' },
      { number: 6, status: 'draft' },
      { number: 7, status: 'draft' },
    ],
    'the newest three and the last published: MAX + 1 rows',
  )
  t.same(
    (await revisionsOf(app, post.id, author.auth)).map((revision) => revision.number),
    [7, 6, 5, 1],
  )
})

t.test('the bytes bound counts from the newest, and keeps the newest and the last published', async (t) => {
  const app = await build(t, { POST_REVISIONS_MAX_BYTES: String(1024 * 1024) })
  const author = await registerUser(app, 'rev-bytes')
  const body = (n: number) => `${n} ${'x'.repeat(99_990)}`
  const post = await createPost(app, author, { body: body(0), excerpt: 'short', status: 'published' })
  for (let edit = 1; edit <= 14; edit++)
    await app.inject({ method: 'PATCH', url: `/posts/${post.id}`, headers: author.auth, payload: { body: body(edit) } })
  const numbers = (await revisionRows(app, post.id)).map((row) => row.number)
  // Ten revisions of about 100 000 bytes fit 1 MiB; the newest published one (the last edit) is among them.
  t.same(numbers, [6, 7, 8, 9, 10, 11, 12, 13, 14, 15])
})

t.test('POST_REVISIONS_MAX=0: nothing written, nothing listed', async (t) => {
  const app = await build(t, { POST_REVISIONS_MAX: '0' })
  const author = await registerUser(app, 'rev-off')
  const post = await createPost(app, author)
  await app.inject({ method: 'PATCH', url: `/posts/${post.id}`, headers: author.auth, payload: { title: 'Edited' } })
  t.same(await revisionRows(app, post.id), [])
  t.same(await revisionsOf(app, post.id, author.auth), [])
})
