// Backup and restore as docs/operations.md tells operators to do it: `pg_dump -Fc` of the service's
// database, `pg_restore --no-owner` into a new database, and an instance started on that with the
// same JWT_SECRET serves the same post, the same image bytes, the same sessions, and its webhook
// still delivers, signed with the secret the admin was given (a job queued before the dump, in
// pg-boss's schema, runs after the restore). With another JWT_SECRET the data is all there, but
// earlier access tokens are refused and the webhook's secret cannot be opened: its deliveries are
// recorded as failed and nothing is sent.
// It always runs on PostgreSQL, in scratch databases of its own, whatever database the run uses.
import { execFile } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import type { FastifyInstance } from 'fastify'
import pg from 'pg'
import { Webhook } from 'standardwebhooks'
import t, { type Test } from 'tap'
import { registerAdmin, type Account } from '../helpers/accounts.ts'
import { build } from '../helpers/build.ts'
import { eventually, keysOf, solidImage, uploadThumbnail } from '../helpers/images.ts'
import { createScratchDatabase } from '../helpers/postgres.ts'
import { createPost, makeDue } from '../helpers/posts.ts'
import { startReceiver, type Received } from '../helpers/webhook-receiver.ts'
import { createWebhook, deliveriesOf } from '../helpers/webhooks.ts'

const run = promisify(execFile)
// One retry a minute at most: an attempt that fails stays one attempt for the length of the test.
const jobs = { pollingIntervalSeconds: 0.5, webhookRetryDelaySeconds: 60 }
const env = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' }
const OTHER_SECRET = 'another-secret-another-secret-0123456789'

/** Whether the delivery's Standard Webhooks signature verifies with `secret` (the standardwebhooks package). */
function verifies(secret: string, delivery: Received): boolean {
  const headers = {
    'webhook-id': String(delivery.headers['webhook-id']),
    'webhook-timestamp': String(delivery.headers['webhook-timestamp']),
    'webhook-signature': String(delivery.headers['webhook-signature']),
  }
  try {
    new Webhook(secret).verify(delivery.body, headers)
    return true
  } catch {
    return false
  }
}

/** What a reader sees of a post, and of each of its images: data, ETag, bytes. */
async function readingOf(app: FastifyInstance, postId: string) {
  const post = await app.inject({ method: 'GET', url: `/posts/${postId}` })
  const images = await Promise.all(
    keysOf(post.json().data).map(async (key) => {
      const image = await app.inject({ method: 'GET', url: `/images/${key}` })
      return { key, status: image.statusCode, type: image.headers['content-type'], bytes: image.rawPayload }
    }),
  )
  return { etag: post.headers.etag, data: post.json().data, images }
}

/** Every table holding rows in the database, as `schema.table` (a partitioned table's rows are in its partitions). */
async function tablesOf(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const { rows } = await client.query<{ name: string }>(`
      select n.nspname || '.' || c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where c.relkind = 'r' and n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg_toast%'`)
    return rows.map((row) => row.name)
  } finally {
    await client.end()
  }
}

/** pg_restore of the dump into a new scratch database; its URL. */
async function restore(t: Test, dump: string, label: string) {
  const url = await createScratchDatabase(t, label)
  await run('pg_restore', ['--no-owner', '--exit-on-error', `--dbname=${url}`, dump])
  return url
}

t.test('pg_dump, pg_restore into a new database: the same post, image, sessions and webhook', async (t) => {
  // The service as it ran before the backup: an admin, a published post with a thumbnail, a
  // webhook endpoint that received that post's event, and a post scheduled an hour ahead.
  const sourceUrl = await createScratchDatabase(t, 'backup_source')
  const source = await build(t, { ...env, DATABASE_URL: sourceUrl }, { jobs })
  const receiver = await startReceiver(t)
  const admin = await registerAdmin(source)
  const hook = await createWebhook(source, admin, { url: receiver.url, events: ['post.published'] })
  const post = await createPost(source, admin, { status: 'published' })
  const uploaded = await uploadThumbnail(source, post.id, admin.auth, await solidImage(1500, 1000, 'jpeg', '#aa5522'))
  t.equal(uploaded.statusCode, 200, 'thumbnail uploaded')
  const scheduled = await createPost(source, admin, {
    status: 'scheduled',
    publishedAt: new Date(Date.now() + 3_600_000).toISOString(),
  })
  t.ok(await eventually(async () => receiver.received.length === 1), "the published post's event was delivered")
  t.ok(verifies(hook.secret, receiver.received[0]!), 'signed with the secret createWebhook gave')
  t.ok(
    await eventually(async () => (await deliveriesOf(source, admin, hook.id)).data.length === 1),
    'and the attempt recorded',
  )
  const before = await readingOf(source, post.id)
  t.equal(before.images.length, 3, 'the thumbnail has three sizes')
  t.ok(
    before.images.every((image) => image.status === 200 && image.bytes.length > 0),
    'each served',
  )
  await source.close()

  // The backup: the database, every schema of it (the service's tables and pg-boss's).
  const folder = await mkdtemp(join(tmpdir(), 'backup-restore-'))
  t.teardown(() => rm(folder, { recursive: true, force: true }))
  const dump = join(folder, 'blog.dump')
  await run('pg_dump', ['-Fc', `--dbname=${sourceUrl}`, `--file=${dump}`])
  const { stdout: contents } = await run('pg_restore', ['--list', dump])
  const dumped = [...contents.matchAll(/^\d+; \d+ \d+ TABLE DATA (\S+) (\S+) /gm)].map(
    ([, schema, table]) => `${schema}.${table}`,
  )
  const tables = await tablesOf(sourceUrl)
  t.same(new Set(tables.map((table) => table.split('.')[0])), new Set(['pgboss', 'public']), "the service's schemas")
  t.ok(
    tables.includes('public.images') && tables.some((table) => table.startsWith('pgboss.j')),
    'images and jobs among them',
  )
  t.same(dumped.sort(), tables.sort(), 'the dump holds the rows of every table')

  await t.test('restored, with the same JWT_SECRET: everything as it was', async (t) => {
    const restored = await build(t, { ...env, DATABASE_URL: await restore(t, dump, 'backup_restored') }, { jobs })
    const after = await readingOf(restored, post.id)
    t.same(after.data, before.data, 'GET /posts/{id}: the same post')
    t.equal(after.etag, before.etag, 'with the same ETag')
    t.same(
      after.images.map(({ key, status, type }) => ({ key, status, type })),
      before.images.map(({ key, status, type }) => ({ key, status, type })),
      'each image served at its /images/ URL',
    )
    t.ok(
      after.images.every((image, index) => image.bytes.equals(before.images[index]!.bytes)),
      'with the same bytes',
    )
    const me = await restored.inject({ method: 'GET', url: '/me', headers: admin.auth })
    t.equal(me.statusCode, 200, 'an access token issued before the backup still works')
    t.equal(me.json().data.role, 'admin', 'the admin is still an admin')
    t.equal((await deliveriesOf(restored, admin, hook.id)).data.length, 1, "the endpoint's delivery history is there")

    // The scheduled post's publication job was queued before the backup: it runs on the restored
    // database, and its event reaches the endpoint signed with the secret given at its creation.
    await makeDue(restored, scheduled.id)
    t.ok(await eventually(async () => receiver.received.length === 2), 'the webhook delivers after the restore')
    const delivery = receiver.received[1]!
    t.equal(JSON.parse(delivery.body).data.id, scheduled.id, 'the scheduled post, published by the restored instance')
    t.ok(verifies(hook.secret, delivery), 'signed with the original secret')
  })

  await t.test('restored, with another JWT_SECRET: data served, tokens refused, webhook not sent', async (t) => {
    const logLines: string[] = []
    const other = await build(
      t,
      {
        ...env,
        DATABASE_URL: await restore(t, dump, 'backup_other_secret'),
        JWT_SECRET: OTHER_SECRET,
        LOG_LEVEL: 'warn',
      },
      { jobs, logDestination: { write: (line) => void logLines.push(line) } },
    )
    const sent = receiver.received.length
    const after = await readingOf(other, post.id)
    t.same(after.data, before.data, 'the post is served as before')
    t.ok(
      after.images.every((image, index) => image.bytes.equals(before.images[index]!.bytes)),
      'so are its images',
    )
    const me = await other.inject({ method: 'GET', url: '/me', headers: admin.auth })
    t.equal(me.statusCode, 401, 'an access token issued before is refused')
    t.equal(me.json().error.code, 'TOKEN_INVALID')

    // Refresh tokens are random values the database keeps hashed: JWT_SECRET plays no part in them.
    const refreshed = await other.inject({
      method: 'POST',
      url: '/refresh',
      payload: { refreshToken: admin.refreshToken },
    })
    t.equal(refreshed.statusCode, 200, 'a refresh token issued before still works: sessions outlive the secret')
    const renewed: Account = {
      ...admin,
      accessToken: refreshed.json().data.accessToken,
      auth: { authorization: `Bearer ${refreshed.json().data.accessToken}` },
    }
    t.equal(
      (await other.inject({ method: 'GET', url: '/me', headers: renewed.auth })).statusCode,
      200,
      'and the access token it gives works',
    )

    await makeDue(other, scheduled.id)
    const attempted = async () => (await deliveriesOf(other, renewed, hook.id)).data.length === 2
    t.ok(await eventually(attempted), "the scheduled post's delivery was attempted")
    t.match(
      (await deliveriesOf(other, renewed, hook.id)).data,
      [
        {
          eventType: 'post.published',
          attempt: 1,
          outcome: 'failed',
          responseStatus: null,
          error: /^not sent: the endpoint's secret cannot be opened \(JWT_SECRET changed/,
        },
        { outcome: 'delivered' },
      ],
      'recorded as failed, saying why (newest first, above the delivery made before the backup)',
    )
    t.equal(receiver.received.length, sent, 'nothing was sent, unsigned or otherwise')
    t.ok(
      logLines.some((line) => /"level":40.*webhook not sent: the endpoint's secret cannot be opened/.test(line)),
      'and the operator is told in the log, at warn',
    )
    const listed = await other.inject({ method: 'GET', url: '/webhooks', headers: renewed.auth })
    t.equal(listed.statusCode, 200, 'the endpoints are still listed')

    // The way back: the endpoint made again gets a secret sealed under this JWT_SECRET.
    const again = await createWebhook(other, renewed, { url: receiver.url, events: ['post.published'] })
    const published = await createPost(other, renewed, { status: 'published' })
    t.ok(await eventually(async () => receiver.received.length === sent + 1), 'an endpoint made again is delivered to')
    const delivery = receiver.received[sent]!
    t.equal(JSON.parse(delivery.body).data.id, published.id)
    t.ok(verifies(again.secret, delivery), 'signed with its new secret')
    t.notOk(verifies(hook.secret, delivery), 'not with the old one')
  })
})
