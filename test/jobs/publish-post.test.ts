// A scheduled post turns published at its time, with no request touching it, also across a restart;
// rescheduling moves its job, unscheduling and deleting cancel it.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { build, usingPostgres } from '../helpers/build.ts'
import { registerUser, type Account } from '../helpers/accounts.ts'
import { createPost, publicationJobsOf } from '../helpers/posts.ts'
import { eventually } from '../helpers/images.ts'
import { createScratchDatabase } from '../helpers/postgres.ts'

type App = Awaited<ReturnType<typeof build>>

/** Reads the status straight from the database, so no API request can be what publishes it. */
async function statusAfter(app: App, id: string, waitMs: number) {
  await sleep(waitMs)
  return (await app.services.database.prisma.post.findUniqueOrThrow({ where: { id }, select: { status: true } })).status
}

const waitForStatus = (app: App, id: string, status: string) =>
  eventually(async () => (await statusAfter(app, id, 0)) === status, 30_000, 200)

const statesOf = async (app: App, postId: string) => (await publicationJobsOf(app, postId)).map((job) => job.state)

/** Jobs that may still run: pg-boss's states before `completed`. */
const live = (jobs: { state: string }[]) => jobs.filter((job) => ['created', 'retry', 'active'].includes(job.state))

const patch = (app: App, author: Account, id: string, payload: object) =>
  app.inject({ method: 'PATCH', url: `/posts/${id}`, headers: author.auth, payload })

t.test('a post scheduled a few seconds ahead publishes itself; a rescheduled one waits for its new time', async (t) => {
  const app = await build(t, {}, { jobs: { pollingIntervalSeconds: 0.5 } })
  const author = await registerUser(app)
  const soon = () => new Date(Date.now() + 2_000).toISOString()
  const post = await createPost(app, author, { status: 'scheduled', publishedAt: soon() })
  t.equal(post.status, 'scheduled')
  // Its own time: the first write of an instance starts the rendering thread (a few hundred ms,
  // seconds on a loaded machine), which may take the first post's time past.
  const later = await createPost(app, author, { status: 'scheduled', publishedAt: soon() })
  t.equal(
    (await patch(app, author, later.id, { publishedAt: new Date(Date.now() + 3_600_000).toISOString() })).statusCode,
    200,
  )

  t.ok(await waitForStatus(app, post.id, 'published'), 'published at its time')
  const anonymous = await app.inject({ method: 'GET', url: `/posts/${post.id}` })
  t.equal(anonymous.statusCode, 200, 'and visible to everyone')
  t.same(await statesOf(app, post.id), ['completed'], 'by its one job')
  t.equal(await statusAfter(app, later.id, 1_500), 'scheduled', 'the rescheduled post waits for its new time')
})

t.test('rescheduling moves the job; unscheduling and deleting cancel it', async (t) => {
  // Polling slowed down: no job may run during this test, so every state seen is the write's doing.
  const app = await build(t, {}, { jobs: { pollingIntervalSeconds: 60 } })
  const author = await registerUser(app)
  const inAnHour = new Date(Date.now() + 3_600_000).toISOString()
  const inTwoHours = new Date(Date.now() + 7_200_000).toISOString()

  const moved = await createPost(app, author, { status: 'scheduled', publishedAt: inAnHour })
  const [first] = await publicationJobsOf(app, moved.id)
  if (!first) throw new Error('no job was enqueued')
  t.match(first, { state: 'created', startAfter: inAnHour }, 'scheduling enqueues a job due at publishedAt')
  t.equal((await patch(app, author, moved.id, { title: 'Only the title changed' })).statusCode, 200)
  t.same(await publicationJobsOf(app, moved.id), [first], 'an edit that keeps the time keeps the job')
  t.equal((await patch(app, author, moved.id, { publishedAt: inTwoHours })).statusCode, 200)
  const jobs = await publicationJobsOf(app, moved.id)
  t.equal(jobs.length, 2)
  t.match(
    jobs,
    [
      { id: first.id, state: 'cancelled' },
      { state: 'created', startAfter: inTwoHours },
    ],
    'rescheduling cancels the old job and enqueues one at the new time',
  )
  t.equal(live(jobs).length, 1, 'exactly one live job')

  const unscheduled = await createPost(app, author, { status: 'scheduled', publishedAt: inAnHour })
  t.equal((await patch(app, author, unscheduled.id, { status: 'draft' })).statusCode, 200)
  t.same(await statesOf(app, unscheduled.id), ['cancelled'], 'back to draft: no live job')

  const publishedNow = await createPost(app, author, { status: 'scheduled', publishedAt: inAnHour })
  t.equal((await patch(app, author, publishedNow.id, { status: 'published' })).statusCode, 200)
  t.same(await statesOf(app, publishedNow.id), ['cancelled'], 'published at once: no live job')

  const deleted = await createPost(app, author, { status: 'scheduled', publishedAt: inAnHour })
  t.equal((await app.inject({ method: 'DELETE', url: `/posts/${deleted.id}`, headers: author.auth })).statusCode, 204)
  t.same(await statesOf(app, deleted.id), ['cancelled'], 'deleted: no live job')
})

t.test(
  `a post scheduled before a restart is published after it, no request touching it (${usingPostgres ? 'PostgreSQL' : 'embedded, on disk'})`,
  async (t) => {
    // PGlite keeps its data in DATA_DIR; on PostgreSQL both apps use a database of their own, where no
    // other test file's worker could be the one that publishes.
    const env: Record<string, string> = usingPostgres
      ? { DATABASE_URL: await createScratchDatabase(t, 'publish_restart') }
      : { DATA_DIR: mkdtempSync(join(tmpdir(), 'blog-publish-restart-')) }
    const before = await build(t, env, { jobs: { pollingIntervalSeconds: 0.5 } })
    const author = await registerUser(before)
    // Room for a sign-up, a write and a stop on a loaded machine (3 s was once too little).
    const due = new Date(Date.now() + 8_000)
    const post = await createPost(before, author, { status: 'scheduled', publishedAt: due.toISOString() })
    await before.close()
    t.ok(Date.now() < due.getTime(), 'the first instance stopped before the post was due')

    const after = await build(t, env, { jobs: { pollingIntervalSeconds: 0.5 } })
    t.ok(await waitForStatus(after, post.id, 'published'), 'published by the restarted service')
  },
)
