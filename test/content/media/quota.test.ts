// The media quota (MEDIA_QUOTA_BYTES): a full library is refused before the body is read, and an
// upload whose renditions would pass the quota is refused under the owner's lock before any images
// row is written; admins have none.
import t from 'tap'
import { build } from '../../helpers/build.ts'
import { registerAdmin, registerUser } from '../../helpers/accounts.ts'
import { countImages, createMedia, uploadMedia } from '../../helpers/media.ts'
import { pngOfSize, solidImage } from '../../helpers/images.ts'

t.test('an upload that would pass the quota is 413 MEDIA_QUOTA_EXCEEDED and stores no image', async (t) => {
  // Random pixels: its renditions take tens of kilobytes, measured as an admin's (no quota).
  const noisy = await pngOfSize(300_000)
  const measuring = await build(t)
  const needed = (await uploadMedia(measuring, (await registerAdmin(measuring)).auth, noisy)).json().data.byteSize
  // Room for the large item alone, or for a small one beside a little of it, not for both.
  const quota = needed + 50
  const app = await build(t, { MEDIA_QUOTA_BYTES: String(quota) })
  const owner = await registerUser(app)
  const small = await createMedia(app, owner.auth, { width: 100 })
  t.ok(small.byteSize > 50 && small.byteSize < quota, `a small item fits (${small.byteSize} bytes)`)

  const before = await countImages(app)
  const refused = await uploadMedia(app, owner.auth, noisy)
  t.equal(refused.statusCode, 413, refused.body)
  const error = refused.json().error
  t.equal(error.code, 'MEDIA_QUOTA_EXCEEDED')
  t.match(error.details[0], {
    path: '/body/file',
    message: `${small.byteSize} of ${quota} bytes used; this image needs ${needed}.`,
  })
  t.equal(await countImages(app), before, 'no images row was written')
  const listed = await app.inject({ method: 'GET', url: '/media', headers: owner.auth })
  t.same(
    listed.json().data.map((item: { id: string }) => item.id),
    [small.id],
    'the library holds the small item only',
  )
})

t.test('a library already full is refused before the body is read', async (t) => {
  const app = await build(t, { MEDIA_QUOTA_BYTES: '1' })
  const owner = await registerUser(app)
  // The quota is 1 byte: the first upload is admitted (0 used) but its renditions do not fit.
  const first = await uploadMedia(app, owner.auth, await solidImage(50, 50, 'png'))
  t.same([first.statusCode, first.json().error.code], [413, 'MEDIA_QUOTA_EXCEEDED'])
  // Not "full; delete items": the image alone is larger than the whole quota.
  t.equal(first.json().error.message, 'This image is larger than your whole media quota; upload a smaller one.')
  t.match(first.json().error.details[0], {
    path: '/body/file',
    message: /^This image needs \d+ bytes; the quota is 1 bytes\.$/,
  })

  const zero = await build(t, { MEDIA_QUOTA_BYTES: '0' })
  const user = await registerUser(zero)
  const before = await countImages(zero)
  // Not an image at all, yet 413 rather than 415: refused before the body is read.
  const refused = await uploadMedia(zero, user.auth, 'not an image at all')
  t.same([refused.statusCode, refused.json().error.code], [413, 'MEDIA_QUOTA_EXCEEDED'])
  t.equal(refused.json().error.details[0].message, '0 of 0 bytes used.', 'checked before the body: no size named')
  t.equal(await countImages(zero), before)
  const allowance = await zero.services.rateLimits.countOne(`upload:user:${user.id}`, 3_600_000)
  t.equal(allowance.current, 1, 'the refused uploads did not spend the hourly allowance (this count is the first)')
})

t.test('admins have no quota', async (t) => {
  const app = await build(t, { MEDIA_QUOTA_BYTES: '0' })
  const admin = await registerAdmin(app)
  const item = await createMedia(app, admin.auth)
  t.ok(item.byteSize > 0)
})
