// A scheduled post turns published at its time, with no request touching it, also across a restart;
// rescheduling moves its job, unscheduling and deleting cancel it.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { build, usingPostgres } from '../helpers/build.ts'
import { registerUser, type Account } from '../helpers/accounts.ts'
import { createPost, makeDue, publicationJobsOf } from '../helpers/posts.ts'
import { eventually } from '../helpers/images.ts'
import { createScratchDatabase } from '../helpers/postgres.ts'

type App = Awaited<ReturnType<typeof build>>

/** Reads the status straight from the database, so no API request can be what publishes it. */
const statusOf = async (app: App, id: string) =>
  (await app.services.database.prisma.post.findUniqueOrThrow({ where: { id }, select: { status: true } })).status

const waitForStatus = (app: App, id: string, status: string) =>
  eventually(async () => (await statusOf(app, id)) === status, 30_000, 200)

const statesOf = async (app: App, postId: string) => (await publicationJobsOf(app, postId)).map((job) => job.state)

/**
 * The states once no job is active: pg-boss marks a job completed after its handler returned, so
 * the post can read published while its job still reads active (seen on a loaded machine).
 */
const settledStatesOf = async (app: App, postId: string) => {
  await eventually(async () => !(await statesOf(app, postId)).includes('active'), 30_000, 200)
  return statesOf(app, postId)
}

/** Jobs that may still run: pg-boss's states before `completed`. */
const live = (jobs: { state: string }[]) => jobs.filter((job) => ['created', 'retry', 'active'].includes(job.state))

const patch = (app: App, author: Account, id: string, payload: object) =>
  app.inject({ method: 'PATCH', url: `/posts/${id}`, headers: author.auth, payload })

t.test('a scheduled post publishes itself once due; a rescheduled one waits for its new time', async (t) => {
  const app = await build(t, {}, { jobs: { pollingIntervalSeconds: 0.5 } })
  const author = await registerUser(app)
  // An hour ahead, so that no request, however slow, outlasts the time left; makeDue then brings
  // the post's time (and its job's) to now, as the clock would.
  const inAnHour = new Date(Date.now() + 3_600_000).toISOString()
  const inTwoHours = new Date(Date.now() + 7_200_000).toISOString()
  const later = await createPost(app, author, { status: 'scheduled', publishedAt: inAnHour })
  t.equal((await patch(app, author, later.id, { publishedAt: inTwoHours })).statusCode, 200)
  const post = await createPost(app, author, { status: 'scheduled', publishedAt: inAnHour })
  t.equal(post.status, 'scheduled')
  await makeDue(app, post.id)

  t.ok(await waitForStatus(app, post.id, 'published'), 'published once due')
  const anonymous = await app.inject({ method: 'GET', url: `/posts/${post.id}` })
  t.equal(anonymous.statusCode, 200, 'and visible to everyone')
  t.same(await settledStatesOf(app, post.id), ['completed'], 'by its one job')
  t.same(
    (await publicationJobsOf(app, later.id)).map(({ state, startAfter }) => ({ state, startAfter })),
    [
      { state: 'cancelled', startAfter: inAnHour },
      { state: 'created', startAfter: inTwoHours },
    ],
    'the rescheduled post: its first job cancelled, one due at its new time',
  )
  // What its job would do if it ran early: publishing is refused before the post's time.
  t.equal(await app.services.posts.publishIfDue(later.id), false, 'not published before its time, even if asked')
  t.equal(await statusOf(app, later.id), 'scheduled', 'and it waits for its new time')
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
    // An hour ahead: the first instance cannot be the one that publishes it, however slow it is.
    const inAnHour = new Date(Date.now() + 3_600_000).toISOString()
    const post = await createPost(before, author, { status: 'scheduled', publishedAt: inAnHour })
    await before.close()

    const after = await build(t, env, { jobs: { pollingIntervalSeconds: 0.5 } })
    t.equal(await statusOf(after, post.id), 'scheduled', 'still scheduled after the restart')
    t.same(await statesOf(after, post.id), ['created'], 'its job waits in the database')
    await makeDue(after, post.id)
    t.ok(await waitForStatus(after, post.id, 'published'), 'published by the restarted service once due')
    t.same(await settledStatesOf(after, post.id), ['completed'], 'by the job the first instance enqueued')
  },
)
