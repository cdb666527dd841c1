// Comment moderation over HTTP: who waits for approval (COMMENT_MODERATION, COMMENT_MAX_LINKS),
// what approving, hiding and spam do to lists, counts, feeds and webhooks, and who may do which.
// A held comment must never reach another user by any road: listComments, commentCount, the
// feed, comment.created.
import t, { type Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { registerAdmin, registerUser } from '../../helpers/accounts.ts'
import { build } from '../../helpers/build.ts'
import { commentCounts, createPostRecord } from '../../helpers/content.ts'
import { createWebhook } from '../../helpers/webhooks.ts'
import { countOf, listed, moderate, postComment as post } from '../../helpers/moderation.ts'

/** The comment events queued for endpoints about the post's comments, as [type, comment id, status]. */
const eventsOf = async (app: FastifyInstance, postId: string) =>
  (await app.services.database.prisma.webhookEvent.findMany({ orderBy: { createdAt: 'asc' } }))
    .map((event) => JSON.parse(event.body) as { type: string; data: { id: string; postId?: string; status: string } })
    // On a shared PostgreSQL other tests' events are there too.
    .filter((event) => event.type.startsWith('comment.') && event.data.postId === postId)
    .map((event) => [event.type, event.data.id, event.data.status])

async function moderatedApp(t: Test, env: Record<string, string> = {}) {
  const app = await build(t, { COMMENT_MODERATION: 'first-time', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', ...env })
  const admin = await registerAdmin(app)
  await createWebhook(app, admin, { url: 'http://127.0.0.1:9/hook', events: ['comment.created', 'comment.moderated'] })
  const author = await registerUser(app, 'author')
  const postId = (await createPostRecord(app, { author })).id
  return { app, admin, author, postId }
}

t.test(
  'first-time: held, seen by its author only, then approved: visible, counted, comment.created once',
  async (t) => {
    const { app, admin, author, postId } = await moderatedApp(t)
    const [newcomer, other] = [await registerUser(app, 'newcomer'), await registerUser(app, 'other')]

    const held = await post(app, newcomer, postId, 'My first words here.')
    t.equal(held.statusCode, 201)
    const id = held.json().data.id as string
    t.equal(held.json().data.status, 'pending', 'a user with no published comment waits')

    t.same(await listed(app, newcomer, postId), [`${id}:pending`], 'its author sees it, marked pending')
    for (const [who, account] of [
      ['anyone', null],
      ['another user', other],
      ['the post author', author],
      ['an admin', admin],
    ] as const)
      t.same(await listed(app, account, postId), [], `${who} does not see it in listComments`)
    t.equal(await countOf(app, postId), 0, 'not counted')
    const feed = await app.inject({ url: '/feed.atom' })
    t.notMatch(feed.body, 'My first words here.', 'not in the feed')
    t.same(await eventsOf(app, postId), [], 'no webhook event for a held comment')

    const queue = await app.inject({ url: '/comments', headers: admin.auth })
    t.equal(queue.statusCode, 200)
    t.ok(
      (queue.json().data as { id: string }[]).some((comment) => comment.id === id),
      'the admin finds it in the queue',
    )
    const approved = await moderate(app, admin, id, 'published')
    t.equal(approved.statusCode, 200)
    t.equal(approved.json().data.status, 'published')
    t.same(await listed(app, other, postId), [`${id}:published`], 'approved: visible to everyone')
    t.equal(await countOf(app, postId), 1, 'and counted')
    t.same(await commentCounts(app, postId), { stored: 1, actual: 1 })

    t.equal((await moderate(app, admin, id, 'hidden')).statusCode, 200)
    t.equal(await countOf(app, postId), 0, 'hidden: not counted')
    t.same(await listed(app, other, postId), [], 'hidden: not listed')
    t.equal((await moderate(app, admin, id, 'published')).statusCode, 200)
    t.equal((await moderate(app, admin, id, 'published')).statusCode, 200, 'the same status again: a no-op')
    t.equal(await countOf(app, postId), 1)
    t.same(
      await eventsOf(app, postId),
      [
        ['comment.created', id, 'published'],
        ['comment.moderated', id, 'published'],
        ['comment.moderated', id, 'hidden'],
        ['comment.moderated', id, 'published'],
      ],
      'comment.created once, on approval; comment.moderated on each change, none for the no-op',
    )

    const second = await post(app, newcomer, postId, 'And now I am trusted.')
    t.equal(second.json().data.status, 'published', 'with a published comment, the next goes live at once')
  },
)

t.test('policy: all holds everyone but admins and the post author on their post; off holds none', async (t) => {
  const { app, admin, author, postId } = await moderatedApp(t, { COMMENT_MODERATION: 'all' })
  const reader = await registerUser(app)
  t.equal((await post(app, reader, postId, 'Held.')).json().data.status, 'pending')
  t.equal((await post(app, admin, postId, 'Admin speaks.')).json().data.status, 'published', 'admins are never held')
  t.equal((await post(app, author, postId, 'Thanks all.')).json().data.status, 'published', 'nor the post author')

  const { app: open, postId: openPost } = await moderatedApp(t, { COMMENT_MODERATION: 'off' })
  t.equal((await post(open, await registerUser(open), openPost, 'Live.')).json().data.status, 'published')
})

t.test('links: more than COMMENT_MAX_LINKS holds the comment, whatever the policy', async (t) => {
  const { app, admin, postId } = await moderatedApp(t, { COMMENT_MODERATION: 'off' })
  const reader = await registerUser(app)
  const two = 'see http://a.example and HTTPS://www.b.example'
  t.equal((await post(app, reader, postId, two)).json().data.status, 'published', 'two links (https://www. is one)')
  const three = 'www.a.example, https://b.example, Www.c.example'
  const held = await post(app, reader, postId, three)
  t.equal(held.json().data.status, 'pending', 'three links: held')
  t.equal((await post(app, admin, postId, three)).json().data.status, 'published', 'admins are not held for links')
  t.equal(await countOf(app, postId), 2)
})

t.test("the post's author hides and shows comments on their post, and may do nothing more", async (t) => {
  const { app, admin, author, postId } = await moderatedApp(t, { COMMENT_MODERATION: 'off' })
  const [reader, stranger] = [await registerUser(app), await registerUser(app)]
  const id = (await post(app, reader, postId, 'Rude words.')).json().data.id as string

  const hidden = await moderate(app, author, id, 'hidden')
  t.equal(hidden.statusCode, 200, 'the post author hides it')
  t.equal(hidden.json().data.status, 'hidden')
  t.equal(await countOf(app, postId), 0)
  t.equal((await moderate(app, author, id, 'published')).statusCode, 200, 'and shows it again')

  const spam = await moderate(app, author, id, 'spam')
  t.equal(spam.statusCode, 403, 'cannot mark spam')
  t.equal(spam.json().error.code, 'FORBIDDEN')
  t.equal((await moderate(app, admin, id, 'spam')).statusCode, 200, 'an admin marks it spam')
  const approve = await moderate(app, author, id, 'published')
  t.equal(approve.statusCode, 403, 'the post author cannot approve spam')
  t.equal(approve.json().error.code, 'FORBIDDEN')
  t.equal(await countOf(app, postId), 0, 'still not counted')

  const strangerTry = await moderate(app, stranger, id, 'published')
  t.equal(strangerTry.statusCode, 404, 'to anyone else, a comment that is not published does not exist')
  t.equal(strangerTry.json().error.code, 'COMMENT_NOT_FOUND')
  const own = await moderate(app, reader, id, 'published')
  t.equal(own.statusCode, 403, 'its author sees it, but may not moderate it')

  const published = (await post(app, reader, postId, 'Kind words.')).json().data.id as string
  t.equal((await moderate(app, stranger, published, 'hidden')).statusCode, 403, 'others may not hide')
  const queue = await app.inject({ url: '/comments?status=spam', headers: author.auth })
  t.equal(queue.statusCode, 403, 'the queue is for admins')
  const reply = await post(app, stranger, postId, 'Agreed!', id)
  t.equal(reply.statusCode, 422, 'a reply to a comment that is not published: as to one that does not exist')
  t.equal(reply.json().error.code, 'PARENT_COMMENT_INVALID')
})

t.test('closed posts: 409 COMMENTS_CLOSED for comments, replies and edits; deleting still works', async (t) => {
  const { app, author, postId } = await moderatedApp(t, { COMMENT_MODERATION: 'off' })
  const reader = await registerUser(app)
  const id = (await post(app, reader, postId, 'Before closing.')).json().data.id as string
  const closed = await app.inject({
    method: 'PATCH',
    url: `/posts/${postId}`,
    headers: author.auth,
    payload: { commentsOpen: false },
  })
  t.equal(closed.statusCode, 200)
  t.equal(closed.json().data.commentsOpen, false)
  t.equal((await app.inject({ url: `/posts/${postId}` })).json().data.commentsOpen, false, 'read back')

  for (const [why, response] of [
    ['a comment', await post(app, reader, postId, 'After closing.')],
    ['a reply', await post(app, reader, postId, 'A reply.', id)],
    [
      'an edit',
      await app.inject({ method: 'PATCH', url: `/comments/${id}`, headers: reader.auth, payload: { body: 'Edited.' } }),
    ],
  ] as const) {
    t.equal(response.statusCode, 409, why)
    t.equal(response.json().error.code, 'COMMENTS_CLOSED', why)
  }
  t.equal((await moderate(app, author, id, 'hidden')).statusCode, 200, 'moderating still works')
  t.equal((await app.inject({ method: 'DELETE', url: `/comments/${id}`, headers: reader.auth })).statusCode, 204)

  const createdClosed = await app.inject({
    method: 'POST',
    url: '/posts',
    headers: author.auth,
    payload: { title: 'Closed from the start', body: 'No comments.', status: 'published', commentsOpen: false },
  })
  t.equal(createdClosed.json().data.commentsOpen, false)
  t.equal((await post(app, reader, createdClosed.json().data.id, 'Hi')).json().error.code, 'COMMENTS_CLOSED')
})

t.test('the moderation queue: by status, post and author; pending oldest first, others newest first', async (t) => {
  const { app, admin, postId } = await moderatedApp(t, { COMMENT_MODERATION: 'all' })
  const reader = await registerUser(app)
  const ids: string[] = []
  for (const body of ['one', 'two', 'three']) ids.push((await post(app, reader, postId, body)).json().data.id)
  const page = async (query: string) => {
    const response = await app.inject({ url: `/comments?${query}`, headers: admin.auth })
    t.equal(response.statusCode, 200, query)
    return response.json() as { data: { id: string }[]; meta: { page: { nextCursor: string | null } } }
  }
  const first = await page(`authorId=${reader.id}&limit=2`)
  t.same(
    first.data.map((comment) => comment.id),
    ids.slice(0, 2),
    'oldest first',
  )
  const next = await page(`authorId=${reader.id}&limit=2&cursor=${first.meta.page.nextCursor}`)
  t.same(
    next.data.map((comment) => comment.id),
    ids.slice(2),
  )
  for (const id of ids) await moderate(app, admin, id, 'spam')
  t.same(
    (await page(`status=spam&postId=${postId}`)).data.map((comment) => comment.id),
    [...ids].reverse(),
    'newest first',
  )
  t.same((await page(`status=pending&postId=${postId}`)).data, [])
  const bad = await app.inject({ url: '/comments?status=deleted', headers: admin.auth })
  t.equal(bad.statusCode, 400)
})
