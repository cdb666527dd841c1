// Moderation decisions over HTTP: what makes a user approved under first-time moderation (only a
// comment published on somebody else's post), an admin's decision standing against the post's
// author, and what comment.moderated tells webhook receivers (the change, never the text).
import { specSchemas } from '../../helpers/spec-schemas.ts'
import t, { type Test } from 'tap'
import { registerAdmin, registerUser } from '../../helpers/accounts.ts'
import { build } from '../../helpers/build.ts'
import { createPostRecord } from '../../helpers/content.ts'
import { createWebhook } from '../../helpers/webhooks.ts'
import { countOf, listed, moderate, postComment as post } from '../../helpers/moderation.ts'

async function moderatedApp(t: Test, env: Record<string, string> = {}) {
  const app = await build(t, { COMMENT_MODERATION: 'first-time', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', ...env })
  const admin = await registerAdmin(app)
  await createWebhook(app, admin, { url: 'http://127.0.0.1:9/hook', events: ['comment.created', 'comment.moderated'] })
  const author = await registerUser(app, 'author')
  const postId = (await createPostRecord(app, { author })).id
  return { app, admin, author, postId }
}

t.test('first-time: comments on their own post are published but do not make a user approved', async (t) => {
  const { app, admin, author, postId } = await moderatedApp(t)
  const newcomer = await registerUser(app, 'newcomer')
  const own = (await createPostRecord(app, { author: newcomer })).id
  const mine = await post(app, newcomer, own, 'Welcome to my post, readers.')
  t.equal(mine.json().data.status, 'published', "a post's author is not held on their own post")
  const elsewhere = await post(app, newcomer, postId, 'Hello from a newcomer.')
  t.equal(elsewhere.json().data.status, 'pending', 'that comment is not an approved one: held elsewhere')
  t.equal((await moderate(app, admin, elsewhere.json().data.id, 'published')).statusCode, 200)
  const next = await post(app, newcomer, postId, 'Trusted now.')
  t.equal(next.json().data.status, 'published', "approved by an admin on somebody else's post: trusted")
  const reader = await registerUser(app)
  t.equal((await post(app, reader, own, 'First on it.')).json().data.status, 'pending')
  t.equal((await post(app, author, own, 'An author elsewhere.')).json().data.status, 'pending')
})

t.test('comment.moderated carries no body, and says the status before', async (t) => {
  const { app, admin, postId } = await moderatedApp(t)
  const newcomer = await registerUser(app, 'newcomer')
  const id = (await post(app, newcomer, postId, 'Buy cheap watches here.')).json().data.id as string
  t.equal((await moderate(app, admin, id, 'spam')).statusCode, 200)
  t.equal((await moderate(app, admin, id, 'published')).statusCode, 200)
  t.equal((await moderate(app, admin, id, 'hidden')).statusCode, 200)
  t.equal((await moderate(app, admin, id, 'published')).statusCode, 200)
  const moderated = (await app.services.database.prisma.webhookEvent.findMany({ orderBy: { createdAt: 'asc' } }))
    .map((event) => JSON.parse(event.body) as { type: string; data: Record<string, unknown> })
    .filter((event) => event.type === 'comment.moderated' && event.data.id === id)
  const validate = specSchemas().compile({ $ref: '#/components/schemas/CommentModeratedEvent' })
  for (const event of moderated) t.ok(validate(event), `as the spec says: ${JSON.stringify(validate.errors)}`)
  t.same(
    moderated.map((event) => [event.data.previousStatus, event.data.status]),
    [
      ['pending', 'spam'],
      ['spam', 'published'],
      ['published', 'hidden'],
      ['hidden', 'published'],
    ],
    'an approval from spam and an unhide are told apart',
  )
  for (const event of moderated) {
    t.notOk(JSON.stringify(event).includes('cheap watches'), 'no body, not even of a comment published since')
    t.match(event.data, { postId, authorId: newcomer.id, moderatedAt: String })
  }
})

t.test("an admin's decision stands against the post's author; the author undoes only their own", async (t) => {
  const { app, admin, author, postId } = await moderatedApp(t, { COMMENT_MODERATION: 'off' })
  const reader = await registerUser(app)
  const id = (await post(app, reader, postId, 'Borderline words.')).json().data.id as string

  t.equal((await moderate(app, admin, id, 'hidden')).statusCode, 200, 'an admin hides it')
  const undo = await moderate(app, author, id, 'published')
  t.equal(undo.statusCode, 403, "the post's author cannot show what an admin hid")
  t.equal(undo.json().error.code, 'FORBIDDEN')
  t.equal(await countOf(app, postId), 0, 'still hidden, not counted')
  t.same(await listed(app, reader, postId), [], 'still not listed')

  t.equal((await moderate(app, admin, id, 'published')).statusCode, 200, 'an admin shows it again')
  t.equal((await moderate(app, author, id, 'hidden')).statusCode, 403, 'nor hide what an admin approved')
  t.equal(await countOf(app, postId), 1)

  const other = (await post(app, reader, postId, 'Other words.')).json().data.id as string
  t.equal((await moderate(app, author, other, 'hidden')).statusCode, 200, 'the author hides what the policy published')
  t.equal((await moderate(app, author, other, 'published')).statusCode, 200, 'and shows what they hid themselves')
  t.equal((await moderate(app, author, other, 'hidden')).statusCode, 200, 'and hides it again')
})
