// Flood control over HTTP: one account's second comment within COMMENT_MIN_INTERVAL_SECONDS is 429
// with Retry-After, counted in the database (two requests at once, or on two instances, cannot both
// pass); the same body twice on one post is 409 DUPLICATE_COMMENT.
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { registerAdmin, registerUser, type Account } from '../../helpers/accounts.ts'
import { build } from '../../helpers/build.ts'
import { createPostRecord } from '../../helpers/content.ts'

const comment = (app: FastifyInstance, who: Account, postId: string, body: string, parentId?: string) =>
  app.inject({
    method: 'POST',
    url: `/posts/${postId}/comments`,
    headers: who.auth,
    payload: { body, ...(parentId ? { parentId } : {}) },
  })

t.test('a second comment within the interval is 429 with Retry-After, on any post; admins are exempt', async (t) => {
  const app = await build(t, { COMMENT_MIN_INTERVAL_SECONDS: '600' })
  const author = await registerUser(app, 'author')
  const [first, second] = [(await createPostRecord(app, { author })).id, (await createPostRecord(app, { author })).id]
  const reader = await registerUser(app)
  t.equal((await comment(app, reader, first, 'One.')).statusCode, 201)
  const again = await comment(app, reader, second, 'Two.')
  t.equal(again.statusCode, 429, 'on another post too')
  t.equal(again.json().error.code, 'RATE_LIMITED')
  const wait = Number(again.headers['retry-after'])
  t.ok(wait > 590 && wait <= 600, `Retry-After is the seconds left (${wait})`)
  t.match(again.json().error.message, `${wait} s`)

  const admin = await registerAdmin(app)
  t.equal((await comment(app, admin, first, 'Admin one.')).statusCode, 201)
  t.equal((await comment(app, admin, first, 'Admin two.')).statusCode, 201, 'admins are never flood-limited')
})

t.test('deleting the comment does not reset the interval: delete and repost is 429', async (t) => {
  const app = await build(t, { COMMENT_MIN_INTERVAL_SECONDS: '600' })
  const author = await registerUser(app, 'author')
  const postId = (await createPostRecord(app, { author })).id
  const reader = await registerUser(app)
  const first = await comment(app, reader, postId, 'Said too fast.')
  t.equal(first.statusCode, 201)
  const id = first.json().data.id as string
  t.equal((await app.inject({ method: 'DELETE', url: `/comments/${id}`, headers: reader.auth })).statusCode, 204)
  const again = await comment(app, reader, postId, 'Said again.')
  t.equal(again.statusCode, 429, 'the interval runs from the last comment written, deleted or not')
  t.equal(again.json().error?.code, 'RATE_LIMITED')
  const wait = Number(again.headers['retry-after'])
  t.ok(wait > 590 && wait <= 600, `Retry-After is the seconds left (${wait})`)
})

t.test('comments sent at once by one account, to two instances: one passes', async (t) => {
  const app = await build(t, { COMMENT_MIN_INTERVAL_SECONDS: '600' })
  // A second instance on the same database where there is one to share (PostgreSQL); on the
  // embedded database, two requests at once to the one instance.
  const other = process.env.DATABASE_URL ? await build(t, { COMMENT_MIN_INTERVAL_SECONDS: '600' }) : app
  const author = await registerUser(app, 'author')
  // Each on a post of its own: comments on one post wait for each other on the post's lock anyway;
  // only the per-author lock orders comments on different posts.
  const posts = await Promise.all(Array.from({ length: 6 }, async () => (await createPostRecord(app, { author })).id))
  const reader = await registerUser(app)
  const answers = await Promise.all(
    posts.map((postId, i) => comment(i % 2 === 0 ? app : other, reader, postId, `Burst ${i}.`)),
  )
  t.same(answers.map((a) => a.statusCode).sort(), [201, 429, 429, 429, 429, 429])
})

t.test(
  'the same body twice on one post is 409 DUPLICATE_COMMENT; elsewhere or as another answer it is not',
  async (t) => {
    const app = await build(t)
    const author = await registerUser(app, 'author')
    const [postId, otherPost] = [
      (await createPostRecord(app, { author })).id,
      (await createPostRecord(app, { author })).id,
    ]
    const reader = await registerUser(app)
    const first = await comment(app, reader, postId, 'Great  post!')
    t.equal(first.statusCode, 201)
    const twice = await comment(app, reader, postId, '  Great post!\n')
    t.equal(twice.statusCode, 409, 'white space runs and ends do not make it another comment')
    t.match(twice.json().error, { code: 'DUPLICATE_COMMENT', details: [{ path: '/body/body' }] })
    t.equal((await comment(app, reader, otherPost, 'Great post!')).statusCode, 201, 'on another post it is new')
    t.equal((await comment(app, author, postId, 'Great post!')).statusCode, 201, 'by another author it is new')
    const id = first.json().data.id as string
    t.equal((await comment(app, author, postId, 'Thanks!', id)).statusCode, 201)
    const other = (await comment(app, reader, postId, 'Another point.')).json().data.id as string
    t.equal(
      (await comment(app, author, postId, 'Thanks!', other)).statusCode,
      201,
      'the same answer to another comment',
    )
    t.equal((await comment(app, author, postId, 'Thanks!', id)).statusCode, 409, 'but not twice to one comment')
    await app.inject({ method: 'DELETE', url: `/comments/${id}`, headers: reader.auth })
    t.equal((await comment(app, reader, postId, 'Great post!')).statusCode, 201, 'a deleted comment does not count')
  },
)

t.test('the duplicate check sees through case, compatibility forms and invisible characters', async (t) => {
  const app = await build(t)
  const author = await registerUser(app, 'author')
  const postId = (await createPostRecord(app, { author })).id
  const reader = await registerUser(app)
  t.equal((await comment(app, reader, postId, 'first')).statusCode, 201)
  for (const [body, why] of [
    ['fir\u200bst', 'a zero-width space'],
    ['FIRST', 'upper case'],
    ['\ufb01rst', 'a compatibility ligature'],
    ['f\u00adirst\u2060', 'a soft hyphen and a word joiner'],
    ['\u2003first\u00a0', 'other white space at the ends'],
  ] as const) {
    const again = await comment(app, reader, postId, body)
    t.equal(again.statusCode, 409, why)
    t.equal(again.json().error?.code, 'DUPLICATE_COMMENT', why)
  }
  t.equal((await comment(app, reader, postId, 'first!')).statusCode, 201, 'other text is another comment')
  const strasse = await comment(app, reader, postId, 'Straße')
  t.equal(strasse.statusCode, 201)
  t.equal((await comment(app, reader, postId, 'STRASSE')).statusCode, 409, 'case-folded: ß is ss')
})
