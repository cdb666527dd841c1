// npm run media:migrate: every image moves to the bucket and back while the app serves it (each
// GET /images answers 200 with the same bytes throughout), and a run stopped after one batch of
// one is finished by running it again. On a scratch PostgreSQL the script and the app share.
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build } from '../helpers/build.ts'
import { registerUser } from '../helpers/accounts.ts'
import { createPost } from '../helpers/posts.ts'
import { keysOf, solidImage, uploadThumbnail } from '../helpers/images.ts'
import { createScratchDatabase } from '../helpers/postgres.ts'
import { startS3 } from '../helpers/s3.ts'

const run = promisify(execFile)

t.test('media:migrate moves images to s3 and back while they are served, and resumes when run again', async (t) => {
  const s3 = await startS3()
  t.teardown(() => s3.close())
  const databaseUrl = await createScratchDatabase(t, 'media_migrate')
  // The app keeps storing in the database; the bucket is configured so it reads rows moved there.
  const env = { ...s3.env, MEDIA_STORAGE: 'database', DATABASE_URL: databaseUrl }
  const app: FastifyInstance = await build(t, env)
  const author = await registerUser(app)
  const originals = new Map<string, Buffer>()
  for (const colour of ['#112233', '#445566']) {
    const post = await createPost(app, author)
    const uploaded = await uploadThumbnail(app, post.id, author.auth, await solidImage(700, 500, 'png', colour))
    t.equal(uploaded.statusCode, 200)
    for (const key of keysOf(uploaded.json().data)) {
      originals.set(key, (await app.inject({ method: 'GET', url: `/images/${key}` })).rawPayload)
    }
  }
  const keys = [...originals.keys()]

  // Readers throughout: every answer must be 200 with the same bytes.
  let reading = true
  t.teardown(() => {
    reading = false
  })
  let reads = 0
  const wrong: string[] = []
  const readers = (async () => {
    while (reading) {
      for (const key of keys) {
        const answer = await app.inject({ method: 'GET', url: `/images/${key}` })
        reads++
        if (answer.statusCode !== 200 || !answer.rawPayload.equals(originals.get(key)!))
          wrong.push(`${key}: ${answer.statusCode}`)
      }
    }
  })()

  const migrate = (...args: string[]) =>
    run(process.execPath, ['--import=tsx', 'scripts/media-migrate.ts', ...args], {
      env: { ...process.env, ...env, JWT_SECRET: 'test-secret-test-secret-test-secret-0123', LOG_LEVEL: 'silent' },
    })
  const locations = async () =>
    (await app.services.database.prisma.image.findMany({ where: { key: { in: keys } }, select: { location: true } }))
      .map((row) => row.location)
      .sort()

  const stopped = await migrate('--to', 's3', '--batch', '1', '--batches', '1')
  t.match(stopped.stdout, /moved 1 images to s3/, 'a run stopped after one batch of one moved one image')
  t.equal((await locations()).filter((at) => at === 's3').length, 1, 'one row points at the bucket')
  const resumed = await migrate('--to', 's3', '--batch', '2')
  t.match(resumed.stdout, new RegExp(`done: ${keys.length - 1} moved to s3`), 'running again moves the rest')
  t.same(
    await locations(),
    keys.map(() => 's3'),
    'every row points at the bucket',
  )
  const inBucket = await app.services.database.prisma.image.count({ where: { key: { in: keys }, data: { not: null } } })
  t.equal(inBucket, 0, 'and keeps no bytes in the database')

  const back = await migrate('--to', 'database')
  t.match(back.stdout, new RegExp(`done: ${keys.length} moved to database`), 'and back')
  t.same(
    await locations(),
    keys.map(() => 'database'),
    'every row is in the database again',
  )
  for (const key of keys) t.equal(await app.services.storage.s3!.readAll(key), null, `${key}: its object is deleted`)

  reading = false
  await readers
  t.ok(reads >= keys.length, `the images were read while they moved (${reads} reads)`)
  t.same(wrong, [], 'every read answered 200 with the same bytes')
})

t.test('a bucket row without its object is passed, and the run says so and exits 1', async (t) => {
  const s3 = await startS3()
  t.teardown(() => s3.close())
  const databaseUrl = await createScratchDatabase(t, 'media_migrate_missing')
  const env = { ...s3.env, DATABASE_URL: databaseUrl }
  const app: FastifyInstance = await build(t, env)
  const author = await registerUser(app)
  const post = await createPost(app, author)
  const uploaded = await uploadThumbnail(app, post.id, author.auth, await solidImage(700, 500, 'png', '#778899'))
  const keys = keysOf(uploaded.json().data)
  // First in key order, so a run that stopped at it would move nothing.
  const lost = `${'0'.repeat(64)}.webp`
  await app.services.database.prisma.image.create({
    data: { key: lost, contentType: 'image/webp', width: 1, height: 1, byteSize: 1, data: null, location: 's3' },
  })
  const migrate = promisify(execFile)(
    process.execPath,
    ['--import=tsx', 'scripts/media-migrate.ts', '--to', 'database', '--batch', '1'],
    { env: { ...process.env, ...env, JWT_SECRET: 'test-secret-test-secret-test-secret-0123', LOG_LEVEL: 'silent' } },
  )
  const failed = await migrate.then(
    () => null,
    (error: { code: number; stdout: string; stderr: string }) => error,
  )
  t.equal(failed?.code, 1, 'the run exits 1')
  t.match(failed?.stdout, new RegExp(`done: ${keys.length} moved to database; 1 still at the other place`))
  t.match(failed?.stderr, /1 of them without their object/, 'naming what is missing')
  const rows = await app.services.database.prisma.image.findMany({
    where: { key: { in: [...keys, lost] } },
    select: { key: true, location: true },
  })
  t.same(
    Object.fromEntries(rows.map((row) => [row.key, row.location])),
    Object.fromEntries([...keys.map((key) => [key, 'database']), [lost, 's3']]),
    'every image with its object moved; the lost one stays',
  )
})
