// A restore brings back the revision's status and publication time through updatePost's rules: a
// published revision publishes the post again at the time it was first published (post.published,
// its slug claimed), a scheduled one whose time is ahead schedules it (a publication job), one
// whose time has passed publishes it at that time, and a draft one unpublishes it (post.updated,
// its slug let go).
import type { FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import { registerAdmin, registerUser } from '../../helpers/accounts.ts'
import { build } from '../../helpers/build.ts'
import { createPost, publicationJobsOf } from '../../helpers/posts.ts'
import { restore, revisionsOf } from '../../helpers/revisions.ts'
import { readBySlug, uniqueTag } from '../../helpers/slugs.ts'
import { createWebhook } from '../../helpers/webhooks.ts'

/** The post events queued for endpoints about the post, oldest first, as [type, status, publishedAt]. */
const eventsOf = async (app: FastifyInstance, postId: string) =>
  (await app.services.database.prisma.webhookEvent.findMany({ orderBy: { createdAt: 'asc' } }))
    .map(
      (event) => JSON.parse(event.body) as { type: string; data: { id: string; status: string; publishedAt: string } },
    )
    // On a shared PostgreSQL other tests' events are there too.
    .filter((event) => event.type.startsWith('post.') && event.data.id === postId)
    .map((event) => [event.type, event.data.status, event.data.publishedAt])

async function setUp(t: Test) {
  const app = await build(t, { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' })
  const admin = await registerAdmin(app)
  await createWebhook(app, admin, { url: 'http://127.0.0.1:9/hook', events: ['post.published', 'post.updated'] })
  const author = await registerUser(app, `restore-${uniqueTag()}`)
  return { app, admin, author }
}

t.test('a defaced post set to draft: restoring publishes it again at its first publishedAt', async (t) => {
  const { app, admin, author } = await setUp(t)
  const title = `Restored status ${uniqueTag()}`
  const post = await createPost(app, author, { title, body: 'The real text.', status: 'published' })
  const defaced = await app.inject({
    method: 'PATCH',
    url: `/posts/${post.id}`,
    headers: author.auth,
    payload: { title: 'Defaced', body: 'Defaced!', status: 'draft' },
  })
  t.equal(defaced.statusCode, 200)
  t.equal((await readBySlug(app, post.slug as string)).statusCode, 404, 'the draft lets go of its slug')

  const first = (await revisionsOf(app, post.id, admin.auth)).at(-1)!
  const restored = await restore(app, post.id, first.id, admin.auth)
  t.equal(restored.statusCode, 200)
  t.match(restored.json().data, {
    title,
    body: 'The real text.',
    status: 'published',
    slug: post.slug,
    publishedAt: post.publishedAt,
  })
  const bySlug = await readBySlug(app, post.slug as string)
  t.same([bySlug.statusCode, bySlug.json().data?.id], [200, post.id], 'its slug claimed again')
  const [newest] = await revisionsOf(app, post.id, admin.auth)
  t.same(newest!.changed, ['title', 'body', 'excerpt', 'status', 'publishedAt'])
  t.same(
    await eventsOf(app, post.id),
    [
      ['post.published', 'published', post.publishedAt],
      ['post.updated', 'draft', null],
      ['post.published', 'published', post.publishedAt],
    ],
    'post.published, as a publication through updatePost sends it',
  )

  t.test('a draft revision onto the published post unpublishes it', async (t) => {
    const draft = (await revisionsOf(app, post.id, admin.auth))[1]!
    const unpublished = await restore(app, post.id, draft.id, author.auth)
    t.equal(unpublished.statusCode, 200)
    t.match(unpublished.json().data, { title: 'Defaced', status: 'draft', publishedAt: null })
    t.equal((await readBySlug(app, post.slug as string)).statusCode, 404, 'its slug let go')
    t.same((await eventsOf(app, post.id)).at(-1), ['post.updated', 'draft', null])
  })
})

t.test('a scheduled revision: its time ahead schedules the post again; passed, publishes it at it', async (t) => {
  const { app, author } = await setUp(t)
  const at = new Date(Date.now() + 3_600_000).toISOString()
  const post = await createPost(app, author, {
    title: `Scheduled ${uniqueTag()}`,
    status: 'scheduled',
    publishedAt: at,
  })
  const patch = (payload: Record<string, unknown>) =>
    app.inject({ method: 'PATCH', url: `/posts/${post.id}`, headers: author.auth, payload })
  t.equal((await patch({ title: 'Unscheduled', status: 'draft' })).statusCode, 200)
  t.same(
    (await publicationJobsOf(app, post.id)).map(({ state }) => state),
    ['cancelled'],
  )

  const first = (await revisionsOf(app, post.id, author.auth)).at(-1)!
  const rescheduled = await restore(app, post.id, first.id, author.auth)
  t.equal(rescheduled.statusCode, 200)
  t.match(rescheduled.json().data, { title: post.title, status: 'scheduled', publishedAt: at })
  t.same(
    (await publicationJobsOf(app, post.id)).map(({ state, startAfter }) => [state, startAfter]),
    [
      ['cancelled', at],
      ['created', at],
    ],
    'a publication job for its time',
  )

  t.equal((await patch({ title: 'Unscheduled again', status: 'draft' })).statusCode, 200)
  // The revision's time passes (a test cannot wait an hour): an hour ago instead.
  const passed = new Date(Date.now() - 3_600_000)
  await app.services.database.prisma.postRevision.update({ where: { id: first.id }, data: { publishedAt: passed } })
  const published = await restore(app, post.id, first.id, author.auth)
  t.equal(published.statusCode, 200)
  t.match(published.json().data, { title: post.title, status: 'published', publishedAt: passed.toISOString() })
  t.same((await eventsOf(app, post.id)).at(-1), ['post.published', 'published', passed.toISOString()])
  t.notOk(
    (await publicationJobsOf(app, post.id)).some(({ state }) => state === 'created'),
    'no publication job is left',
  )
})
