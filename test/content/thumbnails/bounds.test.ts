// What an upload may cost: images whose decoding would cost far more than their bytes are refused
// from their header, before any decoding; at most IMAGE_CONCURRENCY images are decoded at once and
// IMAGE_QUEUE_MAX wait, the rest get 503; each user has an upload allowance (429). Images are real
// ones made with sharp (scripts/bench/hostile-images.ts, shared with the benchmark).
import t from 'tap'
import sharp from 'sharp'
import { deepPng, flatPng } from '../../../scripts/bench/hostile-images.ts'
import { build } from '../../helpers/build.ts'
import { registerUser } from '../../helpers/accounts.ts'
import { createPost } from '../../helpers/posts.ts'
import { eventually, pngClaiming, solidImage, uploadThumbnail } from '../../helpers/images.ts'

const png = { filename: 'a.png', contentType: 'image/png' }

/** The same PNG with its pixel data (the first IDAT chunk's) overwritten: its header reads, its pixels do not decode. */
function corrupted(image: Buffer): Buffer {
  const copy = Buffer.from(image)
  const type = copy.indexOf('IDAT')
  copy.fill(0xff, type + 4, type + 4 + copy.readUInt32BE(type - 4))
  return copy
}

const noisyJpeg = (width: number, height: number) =>
  sharp({
    create: { width, height, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 40 } },
  })
    .jpeg()
    .toBuffer()

t.test('refused from the header, before decoding', async (t) => {
  const app = await build(t, { IMAGE_MAX_DECODED_BYTES: '25000000' })
  const author = await registerUser(app)
  const post = await createPost(app, author)
  const decoded = () => app.services.thumbnails.imageCounts().decoded
  const upload = (image: Buffer) => uploadThumbnail(app, post.id, author.auth, image, png)

  await t.test('thin images: 1 × 100 000 and 100 000 × 1 pixels are 422 IMAGE_BAD_DIMENSIONS', async (t) => {
    for (const [width, height] of [
      [1, 100_000],
      [100_000, 1],
    ] as const) {
      const thin = await solidImage(width, height, 'png')
      const response = await upload(thin)
      t.equal(response.statusCode, 422, `${width}×${height}, ${thin.length} bytes`)
      t.match(response.json().error, {
        code: 'IMAGE_BAD_DIMENSIONS',
        message: `The image is ${width}×${height} pixels; its longer side may be at most 20 times its shorter one.`,
        details: [{ path: '/body/file' }],
      })
    }
  })

  await t.test(
    'never decoded: a thin image whose pixel data is broken is refused for its shape, not as undecodable',
    async (t) => {
      const broken = await upload(corrupted(await solidImage(1, 100_000, 'png')))
      t.equal(broken.json().error.code, 'IMAGE_BAD_DIMENSIONS')
      // A 1×1 image whose header claims 1 × 40 000 000: decoding it would fail on the missing rows.
      t.equal((await upload(await pngClaiming(1, 40_000_000))).json().error.code, 'IMAGE_BAD_DIMENSIONS')
      // The same breakage in an image of an acceptable shape is found by decoding it.
      const decodedAndFailed = await upload(corrupted(await solidImage(200, 100, 'png')))
      t.equal(
        decodedAndFailed.json().error.code,
        'IMAGE_INVALID',
        'control: a broken image that is decoded is IMAGE_INVALID',
      )
    },
  )

  await t.test('16-bit samples count double: 1300×1100 is refused at 16 bits and taken at 8', async (t) => {
    const deep = await deepPng(1300, 1100)
    t.equal((await sharp(deep).metadata()).depth, 'ushort', 'a real 16-bit PNG')
    const refused = await upload(deep)
    t.equal(refused.statusCode, 422)
    t.match(refused.json().error, {
      code: 'IMAGE_TOO_MANY_PIXELS',
      message:
        /^Decoding the image would take about \d+ bytes of memory \(1300×1100 pixels, 3 channels of ushort\); at most 25000000 are allowed\.$/,
    })
    const decodedBefore = decoded()
    t.equal((await upload(await flatPng(1300, 1100))).statusCode, 200, 'the same pixels at 8 bits')
    t.equal(decoded(), decodedBefore + 1)
  })

  await t.test('large dimensions in a tiny file: 8000 × 5000 pixels in a 5 KB PNG, past the pixel limit', async (t) => {
    const strict = await build(t, { IMAGE_MAX_PIXELS: '20000000' })
    const owner = await registerUser(strict)
    const target = await createPost(strict, owner)
    const large = await flatPng(8000, 5000)
    const response = await uploadThumbnail(strict, target.id, owner.auth, large, png)
    t.match(
      response.json().error,
      { code: 'IMAGE_TOO_MANY_PIXELS', message: /40000000 pixels; at most 20000000/ },
      `${large.length} bytes`,
    )
    t.equal(strict.services.thumbnails.imageCounts().decoded, 0, 'nothing was decoded')
  })

  t.equal(decoded(), 2, 'of everything above, only the accepted image and the broken control were decoded')
})

t.test(
  'memory as each decoder needs it: the same 1000×1000 pixels taken as a baseline JPEG, a plain PNG or a lossy WebP, refused as a progressive JPEG, an interlaced PNG, a GIF or an AVIF',
  async (t) => {
    // Measured peaks (src/images/decode-cost.ts): a progressive JPEG keeps 2 bytes per sample of DCT
    // coefficients, an interlaced PNG and a GIF are whole frames before the first row, an AVIF about
    // 19 bytes a pixel; a baseline JPEG, a plain PNG and a WebP are read a few rows at a time.
    const app = await build(t, { IMAGE_MAX_DECODED_BYTES: '16000000' })
    const author = await registerUser(app)
    const post = await createPost(app, author)
    const create = () => sharp({ create: { width: 1000, height: 1000, channels: 3, background: '#3366cc' } })
    const taken: [string, Buffer][] = [
      ['baseline JPEG 4:4:4', await create().jpeg({ chromaSubsampling: '4:4:4' }).toBuffer()],
      ['plain PNG', await create().png().toBuffer()],
      ['lossy WebP', await create().webp().toBuffer()],
    ]
    const refused: [string, Buffer][] = [
      ['progressive JPEG 4:4:4', await create().jpeg({ progressive: true, chromaSubsampling: '4:4:4' }).toBuffer()],
      ['interlaced PNG', await create().png({ progressive: true }).toBuffer()],
      ['GIF', await create().gif().toBuffer()],
      ['AVIF', await create().avif({ effort: 0 }).toBuffer()],
    ]
    for (const [name, image] of taken)
      t.equal((await uploadThumbnail(app, post.id, author.auth, image)).statusCode, 200, name)
    const decodedBefore = app.services.thumbnails.imageCounts().decoded
    for (const [name, image] of refused) {
      const response = await uploadThumbnail(app, post.id, author.auth, image)
      t.equal(response.statusCode, 422, name)
      t.match(
        response.json().error,
        {
          code: 'IMAGE_TOO_MANY_PIXELS',
          message: /^Decoding the image would take about \d+ bytes of memory \(1000×1000 pixels/,
        },
        name,
      )
    }
    t.equal(app.services.thumbnails.imageCounts().decoded, decodedBefore, 'none of the refused was decoded')
  },
)

t.test('at most IMAGE_CONCURRENCY images are decoded at once: six uploads at once, two at a time', async (t) => {
  // One author's six uploads: their places in the pool are not what this test is about.
  const app = await build(t, { IMAGE_CONCURRENCY: '2', IMAGE_QUEUE_MAX: '10', IMAGE_JOBS_PER_USER: '6' })
  const author = await registerUser(app)
  const posts = await Promise.all(Array.from({ length: 6 }, () => createPost(app, author)))
  const images = await Promise.all(posts.map((_, index) => noisyJpeg(1600 + index, 1200)))
  const responses = await Promise.all(
    posts.map((post, index) => uploadThumbnail(app, post.id, author.auth, images[index]!)),
  )
  t.same(
    responses.map((response) => response.statusCode),
    [200, 200, 200, 200, 200, 200],
  )
  const stats = app.services.thumbnails.imageWork.stats()
  t.match(stats, { completed: 6, active: 0, queued: 0, refused: 0 })
  t.ok(stats.peakActive <= 2, `at most 2 at once (${stats.peakActive} seen)`)

  const metrics = (await app.inject({ method: 'GET', url: '/metrics' })).body
  t.match(metrics, /^blog_image_jobs_completed_total 6$/m)
  t.match(metrics, /^blog_image_jobs_peak_active [12]$/m)
  t.match(metrics, /^blog_image_jobs_active 0$/m)
})

t.test(
  'past the running and the waiting: 503 SERVICE_UNAVAILABLE with Retry-After; per user past the allowance: 429',
  async (t) => {
    const app = await build(t, { IMAGE_CONCURRENCY: '1', IMAGE_QUEUE_MAX: '1', UPLOAD_RATE_PER_USER: '3' })
    const pool = app.services.thumbnails.imageWork

    await t.test('the queue full: 503 at once; the one waiting runs when the slot frees', async (t) => {
      const [first, second] = [await registerUser(app), await registerUser(app)]
      const [a, b] = [await createPost(app, first), await createPost(app, second)]
      const image = await solidImage(400, 300, 'png')
      // The one slot, held until released: whatever else comes must wait or be refused.
      let release: () => void = () => {}
      const held = pool.run(() => new Promise<void>((resolve) => (release = resolve)))
      const waiting = uploadThumbnail(app, a.id, first.auth, image)
      t.ok(await eventually(async () => pool.stats().queued === 1, 30_000, 20), 'one upload waits for its turn')
      const refused = await uploadThumbnail(app, b.id, second.auth, image)
      t.equal(refused.statusCode, 503)
      t.equal(refused.headers['retry-after'], '5')
      t.match(refused.json().error, { code: 'SERVICE_UNAVAILABLE', details: [{ path: 'images' }] })
      release()
      await held
      t.equal((await waiting).statusCode, 200, 'the waiting upload went through')
      t.match(pool.stats(), { refused: 1, peakActive: 1 })
    })

    await t.test(
      'the fourth upload of a user in the window: 429 RATE_LIMITED, not decoded; another user is not affected',
      async (t) => {
        const [heavy, other] = [await registerUser(app), await registerUser(app)]
        const post = await createPost(app, heavy)
        const image = await solidImage(300, 200, 'png')
        for (let attempt = 1; attempt <= 3; attempt++)
          t.equal((await uploadThumbnail(app, post.id, heavy.auth, image)).statusCode, 200, `upload ${attempt}`)
        const completed = pool.stats().completed
        const limited = await uploadThumbnail(app, post.id, heavy.auth, image)
        t.equal(limited.statusCode, 429)
        t.match(limited.json().error, { code: 'RATE_LIMITED', message: /^Too many uploads; try again in \d+ s\.$/ })
        const retryAfter = Number(limited.headers['retry-after'])
        t.ok(retryAfter > 3500 && retryAfter <= 3600, `Retry-After ${retryAfter} s: the rest of the hour`)
        t.match(limited.headers, {
          'ratelimit-limit': '3',
          'ratelimit-remaining': '0',
          'ratelimit-reset': String(retryAfter),
        })
        t.equal(pool.stats().completed, completed, 'the refused upload was not decoded')
        const others = await createPost(app, other)
        t.equal((await uploadThumbnail(app, others.id, other.auth, image)).statusCode, 200, 'another user uploads')
      },
    )
  },
)

t.test('turned away by the pool: not counted against the allowance; one place in the pool per user', async (t) => {
  const app = await build(t, { IMAGE_CONCURRENCY: '1', IMAGE_QUEUE_MAX: '2', UPLOAD_RATE_PER_USER: '3' })
  const pool = app.services.thumbnails.imageWork
  const image = await solidImage(300, 200, 'png')
  /** Holds the pool's one slot until the returned function is called. */
  const holdTheSlot = () => {
    let release: () => void = () => {}
    const held = pool.run(() => new Promise<void>((resolve) => (release = resolve)))
    return async () => {
      release()
      await held
    }
  }

  await t.test(
    'four 503s for a user with an allowance of 3, then the upload is taken once the pool has room',
    async (t) => {
      const user = await registerUser(app)
      const post = await createPost(app, user)
      const releaseSlot = holdTheSlot()
      // The queue's two places taken by others, so that this user finds the pool full.
      const [first, second] = [await registerUser(app), await registerUser(app)]
      const queued = [
        uploadThumbnail(app, (await createPost(app, first)).id, first.auth, image),
        uploadThumbnail(app, (await createPost(app, second)).id, second.auth, image),
      ]
      t.ok(await eventually(async () => pool.stats().queued === 2, 30_000, 20), 'the queue is full')
      const answers: number[] = []
      for (let attempt = 1; attempt <= 4; attempt++)
        answers.push((await uploadThumbnail(app, post.id, user.auth, image)).statusCode)
      t.same(answers, [503, 503, 503, 503], 'pool full four times: each one a 503 with Retry-After, none a 429')
      await releaseSlot()
      t.same(await Promise.all(queued.map(async (answer) => (await answer).statusCode)), [200, 200])
      t.equal(
        (await uploadThumbnail(app, post.id, user.auth, image)).statusCode,
        200,
        'following Retry-After, the upload goes through',
      )
    },
  )

  await t.test(
    "a user's second upload while their first waits: 429 at once, and others still find a place",
    async (t) => {
      const [hog, other] = [await registerUser(app), await registerUser(app)]
      const [hogPost, otherPost] = [await createPost(app, hog), await createPost(app, other)]
      const releaseSlot = holdTheSlot()
      const first = uploadThumbnail(app, hogPost.id, hog.auth, image)
      t.ok(await eventually(async () => pool.stats().queued === 1, 30_000, 20), "the hog's first upload waits")
      // Their second: refused at once, or (without a bound per user) queued behind the first.
      const second = uploadThumbnail(app, hogPost.id, hog.auth, image)
      let secondAnswered = false
      void second.then(() => (secondAnswered = true))
      t.ok(await eventually(async () => secondAnswered || pool.stats().queued === 2, 30_000, 20))
      t.equal(pool.stats().queued, 1, "the hog's second upload took no place in the queue")
      const othersUpload = uploadThumbnail(app, otherPost.id, other.auth, image)
      t.ok(
        await eventually(async () => pool.stats().queued === 2, 30_000, 20),
        "another user's upload takes the queue's other place",
      )
      await releaseSlot()
      const refused = await second
      t.equal(refused.statusCode, 429)
      t.equal(refused.headers['retry-after'], '5')
      t.match(refused.json().error, {
        code: 'RATE_LIMITED',
        message: 'An image of yours is being processed already. Try again when it is done.',
        details: [{ path: 'images' }],
      })
      t.same([(await first).statusCode, (await othersUpload).statusCode], [200, 200])
      // The refused upload was given back: with an allowance of 3, two more are taken.
      for (let attempt = 1; attempt <= 2; attempt++)
        t.equal((await uploadThumbnail(app, hogPost.id, hog.auth, image)).statusCode, 200, `then upload ${attempt + 1}`)
      t.equal(
        (await uploadThumbnail(app, hogPost.id, hog.auth, image)).statusCode,
        429,
        'and the fourth is past the allowance',
      )
      t.match(pool.stats(), { refusedOwner: 1 })
    },
  )

  await t.test(
    'the header is read in the pool too: with the slot held and the queue full, even an image its header refuses waits its turn',
    async (t) => {
      const user = await registerUser(app)
      const post = await createPost(app, user)
      const releaseSlot = holdTheSlot()
      const [first, second] = [await registerUser(app), await registerUser(app)]
      const queued = [
        uploadThumbnail(app, (await createPost(app, first)).id, first.auth, image),
        uploadThumbnail(app, (await createPost(app, second)).id, second.auth, image),
      ]
      t.ok(await eventually(async () => pool.stats().queued === 2, 30_000, 20))
      const thin = await uploadThumbnail(app, post.id, user.auth, await solidImage(1, 1000, 'png'))
      t.equal(thin.statusCode, 503, 'not read outside the pool (it would be 422 IMAGE_BAD_DIMENSIONS)')
      await releaseSlot()
      await Promise.all(queued)
      t.equal(
        (await uploadThumbnail(app, post.id, user.auth, await solidImage(1, 1000, 'png'))).json().error.code,
        'IMAGE_BAD_DIMENSIONS',
        'once the pool has room',
      )
    },
  )
})
