// The object store failing under an upload, a read and the readiness probe: uploads answer 503
// with Retry-After within STORAGE_TIMEOUT_MS and keep nothing (no row without its object); an
// object the store took while the answer was lost is found by the bucket sweep; reads of s3 images
// answer 503, never 500; /health says the store is down, from what the instance last found,
// without failing readiness for it.
import { randomBytes } from 'node:crypto'
import t, { type Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { build } from '../helpers/build.ts'
import { registerUser } from '../helpers/accounts.ts'
import { createPost } from '../helpers/posts.ts'
import { eventually, keysOf, solidImage, uploadThumbnail } from '../helpers/images.ts'
import { startS3 } from '../helpers/s3.ts'
import { startS3Proxy } from '../helpers/s3-proxy.ts'
import { makeS3Driver } from '../../src/storage/s3-driver.ts'

const TIMEOUT_MS = 1000
// New bytes each run: on a shared PostgreSQL, rows of an earlier run's images are still there.
const freshColour = () => `#${randomBytes(3).toString('hex')}`

async function inBucket(bucket: ReturnType<typeof makeS3Driver>): Promise<string[]> {
  const keys: string[] = []
  for await (const page of bucket.listOlderThan(new Date(Date.now() + 60_000))) keys.push(...page)
  return keys
}

type Refusal = { error: { code: string; details: { path: string }[] } }

function storageRefusal(t: Test, response: { statusCode: number; headers: Record<string, unknown>; json(): unknown }) {
  t.equal(response.statusCode, 503)
  t.ok(Number(response.headers['retry-after']) > 0, 'with Retry-After')
  const { error } = response.json() as Refusal
  t.equal(error.code, 'SERVICE_UNAVAILABLE')
  t.same(
    error.details.map((detail) => detail.path),
    ['storage'],
    'naming the object store',
  )
}

t.test(
  'the object store fails: 503 with Retry-After, nothing half-written, the sweep finds what it kept',
  async (t) => {
    const s3 = await startS3()
    t.teardown(() => s3.close())
    const proxy = await startS3Proxy(s3.port)
    t.teardown(() => proxy.close())
    const bucket = makeS3Driver(
      {
        endpoint: s3.env.S3_ENDPOINT!,
        region: 'us-east-1',
        bucket: s3.env.S3_BUCKET!,
        prefix: 'images/',
        forcePathStyle: true,
      },
      TIMEOUT_MS,
    )
    t.teardown(() => bucket.close())
    const app: FastifyInstance = await build(t, {
      ...s3.env,
      S3_ENDPOINT: proxy.endpoint,
      STORAGE_TIMEOUT_MS: String(TIMEOUT_MS),
      // No background check: one failing as the proxy changes would refuse the next upload at once,
      // and this test is about an upload's own PUT failing.
      STORAGE_CHECK_INTERVAL_MS: '0',
    })
    const author = await registerUser(app)
    const post = await createPost(app, author)
    const image = await solidImage(700, 500, 'png', freshColour())

    // The store takes the bytes and its answer never comes.
    proxy.set('blackhole')
    const started = Date.now()
    const refused = await uploadThumbnail(app, post.id, author.auth, image)
    storageRefusal(t, refused)
    t.ok(Date.now() - started < TIMEOUT_MS + 4000, 'answered once STORAGE_TIMEOUT_MS passed, not later')
    const kept = await inBucket(bucket)
    t.ok(kept.length > 0, 'the store did keep objects of the failed upload')
    t.equal(
      await app.services.database.prisma.image.count({ where: { key: { in: kept } } }),
      0,
      'and no images row names them: the transaction rolled back',
    )
    const got = await app.inject({ method: 'GET', url: `/posts/${post.id}`, headers: author.auth })
    t.equal(got.json().data.thumbnail, null, 'the post has no thumbnail')

    proxy.set('pass')
    t.equal(await app.services.thumbnails.sweepBucket(0), kept.length, 'the bucket sweep deletes each of them')
    t.same(await inBucket(bucket), [], 'and the bucket is empty')

    const stored = await uploadThumbnail(app, post.id, author.auth, image)
    t.equal(stored.statusCode, 200, 'the store back, the same upload succeeds')
    const keys = keysOf(stored.json().data)
    t.same((await inBucket(bucket)).sort(), [...keys].sort(), 'its objects are in the bucket')
    t.equal(await app.services.thumbnails.sweepBucket(0), 0, 'and the bucket sweep leaves objects rows need')
    const health = await app.inject({ method: 'GET', url: '/health' })
    t.match(health.json().data.storage, { kind: 's3', status: 'up' }, '/health: the store is up')

    proxy.set('blackhole')
    storageRefusal(t, await app.inject({ method: 'GET', url: `/images/${keys[0]}` }))
    const opened = proxy.connections()
    const down = await app.inject({ method: 'GET', url: '/health' })
    t.equal(down.statusCode, 200, '/health: still ready while the store does not answer (posts are served)')
    t.match(down.json().data.storage, { kind: 's3', status: 'down' }, 'and it reports the store down')
    t.ok(Date.parse(down.json().data.storage.checkedAt) > 0, 'as of the failed read')
    t.equal(proxy.connections(), opened, 'from what the read found: the probe did not call the store')

    // The store stopped altogether: connections refused.
    await s3.close()
    proxy.set('pass')
    storageRefusal(t, await app.inject({ method: 'GET', url: `/images/${keys[0]}` }))
    const other = await createPost(app, author)
    storageRefusal(
      t,
      await uploadThumbnail(app, other.id, author.auth, await solidImage(640, 480, 'png', freshColour())),
    )
    t.equal(
      (await app.inject({ method: 'GET', url: `/posts/${post.id}`, headers: author.auth })).statusCode,
      200,
      'reading posts never touches the store',
    )
  },
)

t.test('the background check: /health and blog_storage_up follow the store, readiness stays', async (t) => {
  const s3 = await startS3()
  t.teardown(() => s3.close())
  const proxy = await startS3Proxy(s3.port)
  t.teardown(() => proxy.close())
  const app: FastifyInstance = await build(t, {
    ...s3.env,
    S3_ENDPOINT: proxy.endpoint,
    STORAGE_TIMEOUT_MS: String(TIMEOUT_MS),
    STORAGE_CHECK_INTERVAL_MS: '100',
  })
  const storage = async () => {
    const health = await app.inject({ method: 'GET', url: '/health' })
    t.equal(health.statusCode, 200, 'ready whatever the store does')
    return health.json().data.storage as { kind: string; status: string; checkedAt: string | null }
  }
  const metric = async () => /^blog_storage_up (\d)$/m.exec((await app.inject('/metrics')).body)?.[1]
  t.ok(await eventually(async () => (await storage()).status === 'up'), 'the check finds the store up')
  t.equal(await metric(), '1', 'blog_storage_up 1')

  proxy.set('refuse')
  t.ok(await eventually(async () => (await storage()).status === 'down', 30_000, 50), 'then down, with no request')
  t.equal(await metric(), '0', 'blog_storage_up 0')

  proxy.set('pass')
  t.ok(await eventually(async () => (await storage()).status === 'up', 30_000, 50), 'and up again once it answers')
  t.equal(await metric(), '1', 'blog_storage_up 1 again')
})
