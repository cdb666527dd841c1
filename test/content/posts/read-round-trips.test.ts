// What a post read costs the database when no cache holds it, counted in statements sent (round
// trips), not timed: a cache miss (the first read after a write, a cold instance, the long tail of
// old posts) is built by the database in one statement, as a list page is (post-store.ts findJson),
// whatever the post carries (categories, a thumbnail, media in its body).
import t from 'tap'
import { registerAdmin, registerUser } from '../../helpers/accounts.ts'
import { build, usingPostgres } from '../../helpers/build.ts'
import { createCategory } from '../../helpers/content.ts'
import { solidImage, uploadThumbnail } from '../../helpers/images.ts'
import { createPost } from '../../helpers/posts.ts'
import { statementsOf } from '../../helpers/statements.ts'

t.test(
  'an uncached getPost is one statement, an anonymous one included, and so is a miss',
  { skip: usingPostgres ? false : 'counted on node-postgres, which the embedded database does not use' },
  async (t) => {
    // The caches off: every read is a miss (src/services/caches.ts).
    const app = await build(t, { POST_CACHE_MAX_ENTRIES: '0' })
    const author = await registerUser(app)
    const admin = await registerAdmin(app)
    const categories = [await createCategory(app, admin), await createCategory(app, admin)]
    const post = await createPost(app, author, {
      status: 'published',
      categoryIds: categories.map((category) => category.id),
    })
    const upload = await uploadThumbnail(app, post.id, author.auth, await solidImage(400, 300, 'png'), {
      contentType: 'image/png',
    })
    t.equal(upload.statusCode, 200, 'a thumbnail')
    const read = (headers = {}) => app.inject({ method: 'GET', url: `/posts/${post.id}`, headers })
    t.equal((await read()).statusCode, 200, 'the first read of a kind warms what it warms')

    const anonymous = await statementsOf(async () => t.equal((await read()).statusCode, 200))
    t.equal(anonymous.count, 1, 'anonymous: the post, built as JSON', { statements: anonymous.texts })
    const read2 = await read()
    t.equal(read2.json().data.categories.length, 2, 'with its categories')
    t.equal(read2.json().data.thumbnail.sizes.length > 0, true, 'and its thumbnail')

    const missing = await statementsOf(async () =>
      t.equal((await app.inject({ method: 'GET', url: `/posts/${crypto.randomUUID()}` })).statusCode, 404),
    )
    t.equal(missing.count, 1, 'an unknown id: the same one statement, finding nothing', {
      statements: missing.texts,
    })
  },
)

/** The session check a signed-in request makes (src/auth/sessions): the caller's role and session, one statement. */
const SESSION_CHECK = 1

t.test(
  "getPostBySlug with no cache: the slug with its post's current slug, then the post; signed in, the session check more",
  { skip: usingPostgres ? false : 'counted on node-postgres, which the embedded database does not use' },
  async (t) => {
    const app = await build(t, { POST_CACHE_MAX_ENTRIES: '0' })
    const author = await registerUser(app)
    const post = await createPost(app, author, { status: 'published' })
    const reads = {
      'getPostBySlug, anonymous': { url: `/posts/by-slug/${post.slug}`, headers: {}, statements: 2 },
      'getPostBySlug, signed in': {
        url: `/posts/by-slug/${post.slug}`,
        headers: author.auth,
        statements: 2 + SESSION_CHECK,
      },
      'getPost, signed in': { url: `/posts/${post.id}`, headers: author.auth, statements: 1 + SESSION_CHECK },
    }
    for (const [name, { url, headers, statements }] of Object.entries(reads)) {
      await app.inject({ method: 'GET', url, headers })
      const counted = await statementsOf(async () =>
        t.equal((await app.inject({ method: 'GET', url, headers })).statusCode, 200, name),
      )
      t.equal(counted.count, statements, `${name}: ${statements} statements`, { statements: counted.texts })
    }
  },
)
