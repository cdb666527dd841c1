// The orphan sweep on both drivers never deletes an image an upload is about to use: the upload's
// write locks the image's row (insert ... on conflict do update) and the sweep skips locked rows;
// and an upload of bytes whose object a sweep deleted (and then failed to commit) PUTs them again.
import { createHash, randomBytes } from 'node:crypto'
import t from 'tap'
import { build, usingPostgres } from '../helpers/build.ts'
import { registerUser } from '../helpers/accounts.ts'
import { createPost } from '../helpers/posts.ts'
import { startS3 } from '../helpers/s3.ts'
import type { Rendition } from '../../src/images/renditions.ts'

function rendition(): Rendition {
  const data = randomBytes(300)
  return {
    key: `${createHash('sha256').update(data).digest('hex')}.webp`,
    contentType: 'image/webp',
    width: 10,
    height: 10,
    data,
  }
}

for (const driver of ['database', 's3'] as const) {
  // PGlite runs one transaction at a time: a held upload would hold the sweep too, so there is no race to test.
  const skip = !usingPostgres && 'needs PostgreSQL (concurrent transactions)'
  t.test(
    `${driver}: the sweep skips an image an upload holds, and the upload's commit keeps it`,
    { skip },
    async (t) => {
      const s3 = driver === 's3' ? await startS3() : null
      if (s3) t.teardown(() => s3.close())
      const app = await build(t, s3?.env ?? { MEDIA_STORAGE: 'database' })
      const { prisma } = app.services.database
      const { storeImages, sweepUnusedImages } = app.services.thumbnails
      const author = await registerUser(app)
      const post = await createPost(app, author)
      const image = rendition()
      // Stored and used by nothing: what a replaced thumbnail leaves for the sweep.
      await prisma.$transaction((tx) => storeImages(tx, [image]))

      let stored!: () => void
      let release!: () => void
      const held = new Promise<void>((resolve) => (stored = resolve))
      const released = new Promise<void>((resolve) => (release = resolve))
      const upload = prisma.$transaction(
        async (tx) => {
          await storeImages(tx, [image])
          stored()
          await released
          await tx.postThumbnail.create({ data: { postId: post.id, imageKey: image.key, width: image.width } })
        },
        { timeout: 60_000 },
      )
      await held
      await sweepUnusedImages()
      t.equal(await prisma.image.count({ where: { key: image.key } }), 1, 'the sweep left the held image’s row')
      release()
      await upload
      const served = await app.inject({ method: 'GET', url: `/images/${image.key}` })
      t.equal(served.statusCode, 200, 'once the upload committed, the image is served')
      t.ok(served.rawPayload.equals(image.data), 'with its bytes')
      await sweepUnusedImages()
      t.equal(
        (await app.inject({ method: 'GET', url: `/images/${image.key}` })).statusCode,
        200,
        'and a later sweep keeps it: it is used',
      )
    },
  )
}

t.test('s3: an upload PUTs the bytes again even when their row exists, so a row never lacks its object', async (t) => {
  const s3 = await startS3()
  t.teardown(() => s3.close())
  const app = await build(t, s3.env)
  const { prisma } = app.services.database
  const { storeImages } = app.services.thumbnails
  const bucket = app.services.storage.s3!
  const image = rendition()
  await prisma.$transaction((tx) => storeImages(tx, [image]))
  // What a sweep that deleted the objects and then failed before its commit leaves: the row, no object.
  await bucket.remove([image.key])
  t.equal(await bucket.readAll(image.key), null, 'the object is gone, its row is not')
  await prisma.$transaction((tx) => storeImages(tx, [image]))
  t.ok((await bucket.readAll(image.key))?.equals(image.data), 'storing the same bytes again PUT the object')
})

t.test('both drivers: the sweep deletes unused images, rows and objects', async (t) => {
  const s3 = await startS3()
  t.teardown(() => s3.close())
  const app = await build(t, s3.env)
  const { prisma } = app.services.database
  const { storeImages, sweepUnusedImages } = app.services.thumbnails
  const bucket = app.services.storage.s3!
  const inS3 = rendition()
  await prisma.$transaction((tx) => storeImages(tx, [inS3]))
  const inDatabase = rendition()
  await prisma.image.create({
    data: {
      key: inDatabase.key,
      contentType: 'image/webp',
      width: 10,
      height: 10,
      byteSize: 300,
      data: Uint8Array.from(inDatabase.data),
    },
  })
  t.equal(
    (await app.inject({ method: 'GET', url: `/images/${inDatabase.key}` })).statusCode,
    200,
    'a database row is served beside s3 ones',
  )
  await sweepUnusedImages()
  t.equal(await prisma.image.count({ where: { key: { in: [inS3.key, inDatabase.key] } } }), 0, 'both rows are gone')
  t.equal(await bucket.readAll(inS3.key), null, 'and the object with its row')
})
