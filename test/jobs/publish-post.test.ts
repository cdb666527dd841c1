// A scheduled post turns published at its time, with no request touching it; rescheduling moves it.
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { build } from '../helpers/build.ts'
import { registerUser } from '../helpers/accounts.ts'
import { createPost } from '../helpers/posts.ts'

type App = Awaited<ReturnType<typeof build>>

/** Reads the status straight from the database, so no API request can be what publishes it. */
async function statusAfter(app: App, id: string, waitMs: number) {
  await sleep(waitMs)
  return (await app.services.database.prisma.post.findUniqueOrThrow({ where: { id }, select: { status: true } })).status
}

async function waitForStatus(app: App, id: string, status: string) {
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; ) {
    if ((await statusAfter(app, id, 200)) === status) return true
  }
  return false
}

t.test('a post scheduled a few seconds ahead publishes itself; a rescheduled one waits for its new time', async (t) => {
  const app = await build(t, {}, { jobs: { pollingIntervalSeconds: 0.5 } })
  const author = await registerUser(app)
  const soon = new Date(Date.now() + 2_000).toISOString()
  const post = await createPost(app, author, { status: 'scheduled', publishedAt: soon })
  t.equal(post.status, 'scheduled')
  const later = await createPost(app, author, { status: 'scheduled', publishedAt: soon })
  const moved = await app.inject({ method: 'PATCH', url: `/posts/${later.id}`, headers: author.auth, payload: { publishedAt: new Date(Date.now() + 3_600_000).toISOString() } })
  t.equal(moved.statusCode, 200)
  const cancelled = await createPost(app, author, { status: 'scheduled', publishedAt: soon })
  t.equal((await app.inject({ method: 'PATCH', url: `/posts/${cancelled.id}`, headers: author.auth, payload: { status: 'draft' } })).statusCode, 200)

  t.ok(await waitForStatus(app, post.id, 'published'), 'published at its time')
  const anonymous = await app.inject({ method: 'GET', url: `/posts/${post.id}` })
  t.equal(anonymous.statusCode, 200, 'and visible to everyone')
  // The old jobs of the other two were due at the same time and have run by now (same queue, same poll).
  t.equal(await statusAfter(app, later.id, 1_500), 'scheduled', 'the rescheduled post waits for its new time')
  t.equal(await statusAfter(app, cancelled.id, 0), 'draft', 'the unscheduled post stays a draft')
})
