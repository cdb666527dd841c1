// A hanging object store must not take the database pool. An upload PUTs its objects inside its
// transaction (no row without its object), so each upload talking to the store holds a pooled
// connection for up to STORAGE_TIMEOUT_MS; STORAGE_UPLOADS_MAX bounds how many may (the others
// wait for a turn without one), so reads that need the database still answer while more uploads
// than the pool has connections hang on the store, and once the store fails every upload is
// answered 503 with Retry-After, those still waiting for a turn at once.
// Counted, not timed: how many connections the uploads hold, and that the reads completed while
// every upload was still pending (STORAGE_TIMEOUT_MS is far longer than the test needs).
import { randomBytes, randomUUID } from 'node:crypto'
import t from 'tap'
import { build, usingPostgres } from '../helpers/build.ts'
import { registerUser } from '../helpers/accounts.ts'
import { eventually, solidImage } from '../helpers/images.ts'
import { uploadMedia } from '../helpers/media.ts'
import { startS3 } from '../helpers/s3.ts'
import { startS3Proxy } from '../helpers/s3-proxy.ts'

const POOL = 4
const UPLOADS_MAX = 2
const UPLOADS = POOL + 2

t.test(
  'more uploads than the pool has connections hang on the store: they hold STORAGE_UPLOADS_MAX, reads answer',
  { skip: usingPostgres ? false : 'the embedded database has one connection, which any write holds' },
  async (t) => {
    const s3 = await startS3()
    t.teardown(() => s3.close())
    const proxy = await startS3Proxy(s3.port)
    t.teardown(() => proxy.close())
    const app = await build(t, {
      ...s3.env,
      S3_ENDPOINT: proxy.endpoint,
      // Far longer than the test: nothing here waits for it to pass.
      STORAGE_TIMEOUT_MS: '60000',
      DATABASE_POOL_MAX: String(POOL),
      STORAGE_UPLOADS_MAX: String(UPLOADS_MAX),
      IMAGE_QUEUE_MAX: String(UPLOADS),
      // A background check failing would refuse the uploads before they hang: here they must hang.
      STORAGE_CHECK_INTERVAL_MS: '0',
    })
    const users = await Promise.all(Array.from({ length: UPLOADS }, () => registerUser(app)))
    const images = await Promise.all(users.map(() => solidImage(400, 200, 'png', `#${randomBytes(3).toString('hex')}`)))
    const { imageWork } = app.services.thumbnails
    const encodedBefore = imageWork.stats().completed
    const busy = () => {
      const pool = app.services.database.poolStats()
      return pool.total - pool.idle
    }

    // The store takes the bytes and never answers.
    proxy.set('blackhole')
    let settled = 0
    const uploads = users.map((user, index) =>
      uploadMedia(app, user.auth, images[index]!).finally(() => {
        settled++
      }),
    )
    // Every upload is encoded, and (at least) STORAGE_UPLOADS_MAX of them hold a connection in their PUT.
    t.ok(
      await eventually(
        async () => imageWork.stats().completed - encodedBefore === UPLOADS && busy() >= UPLOADS_MAX,
        30_000,
        20,
      ),
      'every upload is past its encoding and uploads hold connections',
    )

    // Reads that need the database (nothing cached answers them) while the uploads hang.
    const me = await app.inject({ method: 'GET', url: '/me', headers: users[0]!.auth })
    const list = await app.inject({ method: 'GET', url: `/posts?q=${randomUUID().slice(0, 8)}` })
    t.equal(me.statusCode, 200, `getMe answers while the uploads hang (${me.statusCode})`)
    t.equal(list.statusCode, 200, `an uncached listPosts answers too (${list.statusCode})`)
    t.equal(settled, 0, 'and no upload had been answered yet')
    // The reads' own connections go back once their queries end, which may follow their answers.
    t.ok(
      await eventually(async () => busy() === UPLOADS_MAX),
      `the hanging uploads hold ${UPLOADS_MAX} connections, not the pool's ${POOL} (${busy()} busy)`,
    )
    t.same(
      app.services.storage.uploads.stats(),
      { active: UPLOADS_MAX, waiting: UPLOADS - UPLOADS_MAX, refused: 0 },
      'the others wait for a turn, holding none',
    )
    const metrics = await app.inject({ method: 'GET', url: '/metrics' })
    t.match(metrics.body, new RegExp(`^blog_storage_uploads_active ${UPLOADS_MAX}$`, 'm'))
    t.match(metrics.body, new RegExp(`^blog_storage_uploads_waiting ${UPLOADS - UPLOADS_MAX}$`, 'm'))

    // The store fails: the uploads in their PUT answer 503, and those waiting are refused at once.
    proxy.set('refuse')
    for (const answer of await Promise.all(uploads)) {
      t.equal(answer.statusCode, 503, 'the upload is answered 503')
      t.ok(Number(answer.headers['retry-after']) > 0, 'with Retry-After')
      t.same(
        answer.json().error.details.map((detail: { path: string }) => detail.path),
        ['storage'],
        'naming the object store',
      )
    }
    t.equal(app.services.storage.uploads.stats().refused, UPLOADS - UPLOADS_MAX, 'the waiting ones without a PUT')
    // A refused transaction's connection goes back once its rollback ends, which may follow its answer.
    t.ok(await eventually(async () => busy() === 0), 'and every connection is back in the pool')
    t.equal(await app.services.database.prisma.media.count({ where: { ownerId: { in: users.map((u) => u.id) } } }), 0)
  },
)
