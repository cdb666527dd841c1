// Where thumbnails live: in the database, shared by every instance, content-addressed so one
// image can serve several posts, and swept (a pg-boss job) once no post uses it. Served by every
// instance: test/fleet.test.ts.
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build } from '../../helpers/build.ts'
import { registerUser, type Account } from '../../helpers/accounts.ts'
import { createPost } from '../../helpers/posts.ts'
import { eventually, keysOf, solidImage, uploadThumbnail } from '../../helpers/images.ts'

// The sweep job is polled every half second; waits for it are bounded (≤ 30 s).
const jobs = { pollingIntervalSeconds: 0.5 }

const statusOf = async (app: FastifyInstance, key: string) =>
  (await app.inject({ method: 'GET', url: `/images/${key}` })).statusCode
const allAnswer = async (app: FastifyInstance, keys: string[], status: number) =>
  (await Promise.all(keys.map((key) => statusOf(app, key)))).every((s) => s === status)

async function upload(app: FastifyInstance, postId: string, account: Account, image: Buffer): Promise<string[]> {
  const response = await uploadThumbnail(app, postId, account.auth, image)
  if (response.statusCode !== 200) throw new Error(`upload: ${response.statusCode} ${response.body}`)
  return keysOf(response.json().data)
}

t.test(
  'replacing a thumbnail, removing it or deleting its post leaves no image behind; a shared image stays while used',
  async (t) => {
    // Revisions off: a post's revisions keep the thumbnails they recorded, so that a restore brings
    // them back (test/content/revisions/images.test.ts). This test is about the sweep of images
    // nothing uses.
    const app = await build(t, { POST_REVISIONS_MAX: '0' }, { jobs })
    const author = await registerUser(app)
    const [a, b, c] = [await createPost(app, author), await createPost(app, author), await createPost(app, author)]
    const colours = ['#102030', '#405060', '#708090', '#a0b0c0'].map((colour) => solidImage(700, 500, 'png', colour))

    const shared = await upload(app, a.id, author, await colours[0]!)
    t.same(
      await upload(app, b.id, author, await colours[0]!),
      shared,
      'the same bytes give the same keys: one stored image serves both posts',
    )
    const replacement = await upload(app, a.id, author, await colours[1]!)
    t.equal(replacement.filter((key) => shared.includes(key)).length, 0, 'new bytes, new keys')

    const ofC = await upload(app, c.id, author, await colours[2]!)
    t.equal((await app.inject({ method: 'DELETE', url: `/posts/${c.id}`, headers: author.auth })).statusCode, 204)
    // The sweep that removed C's images ran after A's thumbnail was replaced, so it had its chance at `shared`.
    t.ok(await eventually(() => allAnswer(app, ofC, 404)), 'after deleting a post, its images answer 404')
    t.ok(await allAnswer(app, shared, 200), 'the images A no longer uses but B does are still served')

    await upload(app, b.id, author, await colours[3]!)
    t.ok(
      await eventually(() => allAnswer(app, shared, 404)),
      'after replacing the thumbnail, the old images answer 404',
    )
    t.ok(await allAnswer(app, replacement, 200), 'A’s current images stay')

    t.equal(
      (await app.inject({ method: 'DELETE', url: `/posts/${a.id}/thumbnail`, headers: author.auth })).statusCode,
      204,
    )
    t.ok(
      await eventually(() => allAnswer(app, replacement, 404)),
      'after removing the thumbnail, its images answer 404',
    )

    const unused = await app.services.database.prisma.image.count({
      where: { key: { in: [...shared, ...replacement, ...ofC] } },
    })
    t.equal(unused, 0, 'and their rows are gone from the database')
  },
)
