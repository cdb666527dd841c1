// Editing a comment meets the rules a new comment's text meets (docs/features.md, comment
// moderation): a published comment edited to hold more than COMMENT_MAX_LINKS links (or edited
// under COMMENT_MODERATION=all) waits for approval again, out of every list and count others see,
// with comment.moderated and never a second comment.created; the same text as another comment of
// the author's on the post, answering the same comment, is 409 DUPLICATE_COMMENT. Without this an
// approved author could post a harmless comment and edit links into it.
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { registerAdmin, registerUser, type Account } from '../../helpers/accounts.ts'
import { build } from '../../helpers/build.ts'
import { commentCounts, createPostRecord } from '../../helpers/content.ts'
import { createWebhook } from '../../helpers/webhooks.ts'

const write = (app: FastifyInstance, who: Account, postId: string, body: string, parentId?: string) =>
  app.inject({
    method: 'POST',
    url: `/posts/${postId}/comments`,
    headers: who.auth,
    payload: { body, ...(parentId ? { parentId } : {}) },
  })
const edit = (app: FastifyInstance, who: Account, id: string, body: string) =>
  app.inject({ method: 'PATCH', url: `/comments/${id}`, headers: who.auth, payload: { body } })
const approve = (app: FastifyInstance, admin: Account, id: string) =>
  app.inject({ method: 'PATCH', url: `/comments/${id}/status`, headers: admin.auth, payload: { status: 'published' } })
const listedIds = async (app: FastifyInstance, who: Account | null, postId: string) =>
  (
    (await app.inject({ url: `/posts/${postId}/comments`, headers: who?.auth ?? {} })).json().data as { id: string }[]
  ).map((comment) => comment.id)
/** The comment events about the post's comments, as `type status` (other tests' events filtered out), sorted. */
const eventsOf = async (app: FastifyInstance, postId: string) =>
  (await app.services.database.prisma.webhookEvent.findMany({ orderBy: { createdAt: 'asc' } }))
    .map((event) => JSON.parse(event.body) as { type: string; data: { postId?: string; status: string } })
    .filter((event) => event.type.startsWith('comment.') && event.data.postId === postId)
    .map((event) => `${event.type} ${event.data.status}`)
    // One change's events share its transaction's time: compared as a set of counts, not in order.
    .sort()

const LINKS = 'See https://a.example, www.b.example and http://c.example.'

t.test('an approved comment edited to hold too many links waits for approval again', async (t) => {
  const app = await build(t, { COMMENT_MODERATION: 'first-time', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' })
  const admin = await registerAdmin(app)
  await createWebhook(app, admin, { url: 'http://127.0.0.1:9/hook', events: ['comment.created', 'comment.moderated'] })
  const [author, commenter, reader] = [await registerUser(app), await registerUser(app), await registerUser(app)]
  const postId = (await createPostRecord(app, { author })).id

  const id = (await write(app, commenter, postId, 'A harmless first comment.')).json().data.id as string
  t.equal((await approve(app, admin, id)).statusCode, 200)
  const twoLinks = await edit(app, commenter, id, 'Two are fine: https://a.example and www.b.example.')
  t.same([twoLinks.statusCode, twoLinks.json().data.status], [200, 'published'], 'two links: still published')
  t.same(await commentCounts(app, postId), { stored: 1, actual: 1 })

  const held = await edit(app, commenter, id, LINKS)
  t.same([held.statusCode, held.json().data.status], [200, 'pending'], 'three links: pending again')
  t.same(await listedIds(app, reader, postId), [], 'gone from what others see')
  t.same(await listedIds(app, commenter, postId), [id], 'its author still sees it')
  t.equal((await app.inject({ url: `/posts/${postId}` })).json().data.commentCount, 0, 'out of the count')
  t.same(await commentCounts(app, postId), { stored: 0, actual: 0 }, 'the stored count too')

  const pendingEdit = await edit(app, commenter, id, 'No links now.')
  t.equal(pendingEdit.json().data.status, 'pending', 'a held comment is not released by an edit')
  t.same((await approve(app, admin, id)).json().data.status, 'published')
  t.same(await listedIds(app, reader, postId), [id], 'approved: listed again')
  t.same(
    await eventsOf(app, postId),
    [
      'comment.created published',
      'comment.moderated pending',
      'comment.moderated published',
      'comment.moderated published',
    ],
    'created once; each change of status announced (approved, held by the edit, approved again)',
  )
})

t.test("trusted authors' edits are not held; COMMENT_MODERATION=all holds every other edit", async (t) => {
  const app = await build(t, { COMMENT_MODERATION: 'all' })
  const [admin, author, commenter] = [await registerAdmin(app), await registerUser(app), await registerUser(app)]
  const postId = (await createPostRecord(app, { author })).id
  for (const [who, account] of [
    ['the post’s author', author],
    ['an admin', admin],
  ] as const) {
    const id = (await write(app, account, postId, `${who} writes.`)).json().data.id as string
    const edited = await edit(app, account, id, LINKS)
    t.same([edited.statusCode, edited.json().data.status], [200, 'published'], `${who}: links and all, published`)
  }
  const id = (await write(app, commenter, postId, 'Waiting, as all do.')).json().data.id as string
  await approve(app, admin, id)
  const edited = await edit(app, commenter, id, 'Reworded, no links.')
  t.same([edited.statusCode, edited.json().data.status], [200, 'pending'], 'under all, the new text waits too')
  t.same(await commentCounts(app, postId), { stored: 2, actual: 2 })
})

t.test('an edit to the text of another comment of the author on the post is 409 DUPLICATE_COMMENT', async (t) => {
  const app = await build(t)
  const [author, commenter] = [await registerUser(app), await registerUser(app)]
  const postId = (await createPostRecord(app, { author })).id
  const first = (await write(app, commenter, postId, 'Nice post.')).json().data.id as string
  const second = (await write(app, commenter, postId, 'Another thought.')).json().data.id as string
  const reply = (await write(app, commenter, postId, 'A reply.', first)).json().data.id as string

  const twin = await edit(app, commenter, second, '  Nice   post.\n')
  t.equal(twin.statusCode, 409)
  t.same(twin.json().error, {
    code: 'DUPLICATE_COMMENT',
    message: 'You have already written this comment on this post.',
    details: [{ path: '/body/body', message: 'is the same as an earlier comment of yours on this post' }],
  })
  t.equal((await edit(app, commenter, first, 'Nice  post. ')).statusCode, 200, 'its own text again is no duplicate')
  t.equal((await edit(app, commenter, reply, 'Nice post.')).statusCode, 200, 'a reply answers another comment')
  const other = await registerUser(app)
  const theirs = (await write(app, other, postId, 'Mine.')).json().data.id as string
  t.equal(
    (await edit(app, other, theirs, 'Another thought.')).statusCode,
    200,
    "another author's text is theirs to write",
  )
})
