// Metadata is bounded before any decoder reads it: decoders read (and inflate) every metadata block
// along with the header, so a small file of valid pixels can carry hundreds of megabytes of text.
// At most 64 blocks and 1 MiB of them, compressed ones counted once inflated; the images here
// carry a little more than that, in each format's own kind of block, and nothing of them is decoded.
import { deflateSync } from 'node:zlib'
import t from 'tap'
import sharp from 'sharp'
import { pngChunk } from '../../../scripts/bench/hostile-images.ts'
import { build } from '../../helpers/build.ts'
import { registerUser } from '../../helpers/accounts.ts'
import { createPost } from '../../helpers/posts.ts'
import { solidImage, uploadThumbnail } from '../../helpers/images.ts'

const MiB = 1024 * 1024

/** `png` with `chunks` inserted right after its IHDR (signature 8 bytes, IHDR 25). */
const withPngChunks = (png: Buffer, chunks: Buffer[]) =>
  Buffer.concat([png.subarray(0, 33), ...chunks, png.subarray(33)])

/** A zTXt chunk whose text inflates to `size` bytes (a few hundred bytes in the file per MiB). */
const zTXt = (size: number, keyword = 'Comment') =>
  pngChunk(
    'zTXt',
    Buffer.concat([Buffer.from(`${keyword}\0\0`, 'latin1'), deflateSync(Buffer.alloc(size, 0x41), { level: 9 })]),
  )

/** `jpeg` with `segments` (marker, payload) inserted right after its start-of-image marker. */
function withJpegSegments(jpeg: Buffer, segments: [number, Buffer][]): Buffer {
  const encoded = segments.map(([marker, payload]) => {
    const head = Buffer.from([0xff, marker, 0, 0])
    head.writeUInt16BE(payload.length + 2, 2)
    return Buffer.concat([head, payload])
  })
  return Buffer.concat([jpeg.subarray(0, 2), ...encoded, jpeg.subarray(2)])
}

/** `gif` with a comment extension of `size` bytes (in 255-byte sub-blocks) after its global colour table. */
function withGifComment(gif: Buffer, size: number): Buffer {
  const flags = gif[10]!
  const at = 13 + (flags & 0x80 ? 3 * (1 << ((flags & 7) + 1)) : 0)
  const blocks: Buffer[] = [Buffer.from([0x21, 0xfe])]
  for (let left = size; left > 0; left -= 255) {
    const length = Math.min(255, left)
    blocks.push(Buffer.from([length]), Buffer.alloc(length, 0x41))
  }
  blocks.push(Buffer.from([0]))
  return Buffer.concat([gif.subarray(0, at), ...blocks, gif.subarray(at)])
}

const xmpOf = (size: number) =>
  `<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description>${'x'.repeat(size)}</rdf:Description></rdf:RDF></x:xmpmeta>`
const withXmp = (format: 'png' | 'webp' | 'avif', size: number) =>
  sharp({ create: { width: 32, height: 32, channels: 3, background: '#3366cc' } })
    .withXmp(xmpOf(size))
    .toFormat(format)
    .toBuffer()

t.test('images carrying more metadata than allowed: 422 IMAGE_METADATA_TOO_LARGE, never decoded', async (t) => {
  const app = await build(t)
  const author = await registerUser(app)
  const post = await createPost(app, author)
  const thumbnails = app.services.thumbnails
  const png = await solidImage(32, 32, 'png')
  const jpeg = await solidImage(32, 32, 'jpeg')

  const cases: [string, Buffer, RegExp][] = [
    // The reviewer's bomb, scaled down: text that inflates to 1.5 MiB in a file of a few KB.
    [
      'PNG, three zTXt chunks of 0.5 MiB each once inflated',
      withPngChunks(png, [zTXt(MiB / 2), zTXt(MiB / 2), zTXt(MiB / 2)]),
      /more than 1048576 bytes of metadata/,
    ],
    [
      'PNG, XMP of 1.1 MB in a compressed iTXt chunk (as libvips writes it)',
      await withXmp('png', 1_100_000),
      /more than 1048576 bytes/,
    ],
    [
      'PNG, 65 tEXt chunks of a few bytes',
      withPngChunks(
        png,
        Array.from({ length: 65 }, (_, index) => pngChunk('tEXt', Buffer.from(`Note\0${index}`, 'latin1'))),
      ),
      /more than 64 metadata blocks/,
    ],
    [
      'JPEG, 65 COM segments',
      withJpegSegments(
        jpeg,
        Array.from({ length: 65 }, () => [0xfe, Buffer.from('hi')]),
      ),
      /more than 64 metadata blocks/,
    ],
    [
      'JPEG, 17 APP1 segments of 64 KB',
      withJpegSegments(
        jpeg,
        Array.from({ length: 17 }, () => [0xe1, Buffer.alloc(65_000, 0x41)]),
      ),
      /more than 1048576 bytes/,
    ],
    ['WebP, an XMP chunk of 1.1 MB', await withXmp('webp', 1_100_000), /more than 1048576 bytes/],
    ['AVIF, an XMP item of 1.1 MB', await withXmp('avif', 1_100_000), /more than 1048576 bytes/],
    [
      'GIF, a comment extension of 1.1 MB',
      withGifComment(await solidImage(32, 32, 'gif'), 1_100_000),
      /more than 1048576 bytes/,
    ],
  ]
  for (const [name, image, message] of cases) {
    const decodedBefore = thumbnails.imageCounts().decoded
    const response = await uploadThumbnail(app, post.id, author.auth, image)
    t.equal(response.statusCode, 422, `${name}: ${image.length} bytes`)
    t.match(
      response.json().error,
      { code: 'IMAGE_METADATA_TOO_LARGE', message, details: [{ path: '/body/file' }] },
      name,
    )
    t.equal(thumbnails.imageCounts().decoded, decodedBefore, `${name}: not decoded`)
  }
})

t.test(
  'a compressed text chunk that does not inflate: 422 IMAGE_INVALID (what its decoder would read is unknown)',
  async (t) => {
    const app = await build(t)
    const author = await registerUser(app)
    const post = await createPost(app, author)
    const broken = pngChunk(
      'zTXt',
      Buffer.concat([Buffer.from('Comment\0\0', 'latin1'), Buffer.from('not deflate at all')]),
    )
    const response = await uploadThumbnail(
      app,
      post.id,
      author.auth,
      withPngChunks(await solidImage(32, 32, 'png'), [broken]),
    )
    t.equal(response.statusCode, 422)
    t.equal(response.json().error.code, 'IMAGE_INVALID')
  },
)

t.test('ordinary metadata is taken: an ICC profile, EXIF, a few text chunks, XMP under the bound', async (t) => {
  const app = await build(t)
  const author = await registerUser(app)
  const post = await createPost(app, author)
  const p3 = (format: 'png' | 'jpeg' | 'webp') =>
    sharp({ create: { width: 32, height: 32, channels: 3, background: '#3366cc' } })
      .withIccProfile('p3')
      .withExif({ IFD0: { Copyright: 'Someone' } })
      .toFormat(format)
      .toBuffer()
  const images: [string, Buffer][] = [
    [
      'PNG with a P3 profile, EXIF and three text chunks',
      withPngChunks(await p3('png'), [
        zTXt(10_000),
        pngChunk('tEXt', Buffer.from('Title\0A photo')),
        zTXt(20_000, 'Description'),
      ]),
    ],
    ['JPEG with a P3 profile and EXIF', await p3('jpeg')],
    ['WebP with a P3 profile and EXIF', await p3('webp')],
    ['AVIF with 100 KB of XMP', await withXmp('avif', 100_000)],
  ]
  for (const [name, image] of images)
    t.equal((await uploadThumbnail(app, post.id, author.auth, image)).statusCode, 200, name)
})
