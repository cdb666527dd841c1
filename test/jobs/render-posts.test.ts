// The render-posts job gives html to the posts that have none: written before html existed, or
// written during a rolling upgrade by an instance of the release before (which knows no html: its
// edits of a body leave the old html behind, and the database drops it). It renders each once,
// across a fleet that starts together, in bounded runs, and readers see the result.
import t, { type Test } from 'tap'
import { plainTextHtml } from '../../src/content/html/post-html.ts'
import { RENDER_POSTS_QUEUE } from '../../src/jobs/render-posts.ts'
import { registerUser } from '../helpers/accounts.ts'
import { build, usingPostgres } from '../helpers/build.ts'
import { eventually } from '../helpers/images.ts'
import { createScratchDatabase } from '../helpers/postgres.ts'
import { createPost } from '../helpers/posts.ts'
import { blowUp } from '../content/html/pathological-bodies.ts'

type App = Awaited<ReturnType<typeof build>>

/** What a post looked like before the column existed: no html, and on the list of posts to render. */
const forgetHtml = (app: App, id: string) =>
  app.services.database.prisma.$executeRaw`update posts set html = null where id = ${id}::uuid`
/** An edit by an instance of the release before: the body changes, html is not written. */
const editAsPreviousRelease = (app: App, id: string, body: string) =>
  app.services.database.prisma.$executeRaw`update posts set body = ${body} where id = ${id}::uuid`
const htmlIn = async (app: App, id: string) =>
  (await app.services.database.prisma.post.findUniqueOrThrow({ where: { id }, select: { html: true } })).html
const pending = (app: App) => app.services.database.prisma.postHtmlPending.count()

/**
 * On PostgreSQL, a database of the test's own: the list of posts to render and the render-posts
 * queue are the whole database's, and the apps of test files running beside this one would render
 * these posts, or hold the queue's one run, with limits of their own.
 */
const ownDatabase = async (t: Test): Promise<Record<string, string>> =>
  usingPostgres ? { DATABASE_URL: await createScratchDatabase(t, 'render_posts') } : {}

t.test('posts without html get it from the job, and readers see it', async (t) => {
  const app = await build(t, await ownDatabase(t), { jobs: { pollingIntervalSeconds: 0.5 } })
  const author = await registerUser(app)
  const old = await createPost(app, author, { body: 'Written *before*.', status: 'published' })
  const edited = await createPost(app, author, { body: 'Original.', status: 'published' })
  const huge = await createPost(app, author, { body: 'Small.' })
  await forgetHtml(app, old.id)
  await editAsPreviousRelease(app, edited.id, 'Edited by **1.2**.')
  await editAsPreviousRelease(app, huge.id, blowUp(100_000))
  t.equal(await htmlIn(app, edited.id), null, 'the database dropped the html of the old body')

  const before = await app.inject({ method: 'GET', url: `/posts/${old.id}` })
  t.equal(before.json().data.html, '', 'while it waits: empty, not rendered on read')

  await app.services.queue.boss.send(RENDER_POSTS_QUEUE, {})
  t.ok(await eventually(async () => (await pending(app)) === 0), 'the job emptied the list')
  t.equal(await htmlIn(app, old.id), '<p>Written <em>before</em>.</p>\n')
  t.equal(await htmlIn(app, edited.id), '<p>Edited by <strong>1.2</strong>.</p>\n')
  t.equal(await htmlIn(app, huge.id), plainTextHtml(blowUp(100_000)), 'past the bound: the body as plain text')
  t.ok((await htmlIn(app, huge.id))!.length <= 1_000_000)

  const after = await app.inject({ method: 'GET', url: `/posts/${old.id}` })
  t.equal(after.json().data.html, '<p>Written <em>before</em>.</p>\n', 'the cached post was forgotten')
  t.not(after.headers.etag, before.headers.etag)
  t.same(await app.services.postHtml.renderPending({ batchSize: 10, maxBatches: 10 }), { rendered: 0, more: false })
})

t.test('a run is bounded, and asks for another when it leaves posts behind', async (t) => {
  const app = await build(t, await ownDatabase(t), {
    jobs: { pollingIntervalSeconds: 0.5, htmlBackfill: { batchSize: 2, maxBatches: 1 } },
  })
  const author = await registerUser(app)
  const posts = []
  for (let i = 0; i < 5; i++) posts.push(await createPost(app, author, { body: `Post ${i}` }))
  for (const post of posts) await forgetHtml(app, post.id)

  const run = await app.services.postHtml.renderPending({ batchSize: 2, maxBatches: 1 })
  t.same(run, { rendered: 2, more: true })
  await app.services.queue.boss.send(RENDER_POSTS_QUEUE, {})
  t.ok(await eventually(async () => (await pending(app)) === 0), 'further runs finished the work')
  for (const [i, post] of posts.entries()) t.equal(await htmlIn(app, post.id), `<p>Post ${i}</p>\n`)
})

const skip = usingPostgres ? false : 'needs PostgreSQL: the embedded database belongs to one process (set DATABASE_URL)'

t.test('a fleet starting together renders each post once', { skip }, async (t) => {
  const env = { DATABASE_URL: await createScratchDatabase(t, 'render_fleet') }
  const jobs = { pollingIntervalSeconds: 0.5 }
  const first = await build(t, env, { jobs })
  const { prisma } = first.services.database
  const author = await registerUser(first)
  const ids: string[] = []
  for (let i = 0; i < 30; i++) ids.push((await createPost(first, author, { body: `Post *${i}*` })).id)
  for (const id of ids) await forgetHtml(first, id)
  // Every html stored, whoever stores it: the jobs of three instances, and the runs started below.
  await prisma.$executeRawUnsafe('create table html_writes (post_id uuid)')
  await prisma.$executeRawUnsafe(
    `create function log_html_write() returns trigger language plpgsql as $$
     begin insert into html_writes values (new.id); return null; end $$`,
  )
  await prisma.$executeRawUnsafe(
    `create trigger log_html_write after update of html on posts
     for each row when (new.html is not null) execute function log_html_write()`,
  )

  const fleet = await Promise.all([build(t, env, { jobs }), build(t, env, { jobs })])
  const live = await prisma.$queryRaw<{ count: number }[]>`
    select count(*)::int as count from pgboss.job
    where name = ${RENDER_POSTS_QUEUE} and state in ('created', 'retry', 'active')`
  t.ok(live[0]!.count <= 2, `three starts: ${live[0]!.count} runs waiting or running, at most one of each`)

  const limits = { batchSize: 4, maxBatches: 100 }
  await Promise.all([...fleet, first].map((app) => app.services.postHtml.renderPending(limits)))
  t.ok(await eventually(async () => (await pending(first)) === 0), 'all rendered')
  const writes = await prisma.$queryRaw<{ count: number }[]>`select count(*)::int as count from html_writes`
  t.equal(writes[0]!.count, ids.length, 'each post stored once')
  for (const [i, id] of ids.entries()) t.equal(await htmlIn(first, id), `<p>Post <em>${i}</em></p>\n`)
})
