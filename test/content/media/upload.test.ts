// uploadMedia over HTTP: the item's shape, its renditions served by getImage, and its place in the
// owner's library; the thumbnails' refusals apply (one of them shown here, all in thumbnails/).
import t from 'tap'
import sharp from 'sharp'
import { build } from '../../helpers/build.ts'
import { registerUser } from '../../helpers/accounts.ts'
import { jpegWithGps } from '../../helpers/images.ts'
import { uploadMedia, type MediaItem } from '../../helpers/media.ts'

t.test('an upload answers 201 with the item; every rendition is served as WebP', async (t) => {
  const app = await build(t)
  const owner = await registerUser(app)
  const response = await uploadMedia(app, owner.auth, await jpegWithGps(2000, 1400))
  t.equal(response.statusCode, 201, response.body)
  const item = response.json().data as MediaItem
  t.equal(item.ownerId, owner.id)
  t.equal(item.alt, null)
  t.equal(item.contentType, 'image/webp')
  t.same(
    item.renditions.map((size) => [size.width, size.height]),
    [
      [320, 457],
      [640, 914],
      [1280, 1829],
    ],
    'the thumbnail widths, orientation applied',
  )
  t.same([item.width, item.height, item.url], [1280, 1829, item.renditions[2]!.url], 'the largest rendition')
  let bytes = 0
  for (const size of item.renditions) {
    t.match(size.url, /^\/images\/[a-f0-9]{64}\.webp$/)
    const image = await app.inject({ method: 'GET', url: size.url })
    t.equal(image.statusCode, 200, size.url)
    t.equal(image.headers['content-type'], 'image/webp')
    t.match(await sharp(image.rawPayload).metadata(), { format: 'webp', width: size.width, exif: undefined })
    bytes += image.rawPayload.length
  }
  t.equal(item.byteSize, bytes, 'byteSize is the renditions’ bytes')

  const read = await app.inject({ method: 'GET', url: `/media/${item.id}`, headers: owner.auth })
  t.same(read.json().data, item, 'getMedia answers the same item')
  const listed = await app.inject({ method: 'GET', url: '/media', headers: owner.auth })
  t.same(listed.json().data, [item], 'and it is in the owner’s library')
})

t.test('the thumbnails’ checks apply: a file that is no image is 415, nothing stored', async (t) => {
  const app = await build(t)
  const owner = await registerUser(app)
  const response = await uploadMedia(app, owner.auth, '<svg xmlns="http://www.w3.org/2000/svg"/>')
  t.same([response.statusCode, response.json().error.code], [415, 'IMAGE_UNSUPPORTED_TYPE'])
  const listed = await app.inject({ method: 'GET', url: '/media', headers: owner.auth })
  t.same(listed.json().data, [])
})

t.test('anonymous uploads are 401', async (t) => {
  const app = await build(t)
  const response = await uploadMedia(app, {}, 'x')
  t.equal(response.statusCode, 401)
})
