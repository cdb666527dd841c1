// The spec's examples of data show what a fresh install really answers, wherever that does not
// depend on ids, clocks or earlier traffic: the default category, slugs derived from names,
// excerpts derived from bodies, thumbnail sizes, the claims of an access token, the form of ETags
// and cursors. (test/contract/examples.test.ts checks that each example fits its schema; this
// checks that it is true.) On PostgreSQL the app gets a database of its own, fresh as an install.
import t from 'tap'
import { loadSpec } from '../../src/spec.ts'
import { registerAdmin, registerUser } from '../helpers/accounts.ts'
import { build, usingPostgres } from '../helpers/build.ts'
import { solidImage, uploadThumbnail } from '../helpers/images.ts'
import { createScratchDatabase } from '../helpers/postgres.ts'
import { createPost } from '../helpers/posts.ts'

type Json = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any -- examples are free-form JSON
type Category = { name: string; slug: string; isDefault?: boolean }

const spec = loadSpec() as unknown as Json
const example = (name: string): Json => spec.components.examples[name].value
const requestExample = (path: string, method: string, name: string): Json =>
  spec.paths[path][method].requestBody.content['application/json'].examples[name].value
const postExamples = [
  example('PostPublished').data,
  example('PostDraft').data,
  example('PostScheduled').data,
  ...example('PostListPage').data,
] as Json[]
const namesAndSlugs = (categories: Category[]) =>
  categories.map(({ name, slug, isDefault }) => ({ name, slug, ...(isDefault === undefined ? {} : { isDefault }) }))
const claimsOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8')) as Json
/** Where a value's letters and digits are, not which they are: the form two tokens of one kind share. */
const formOf = (value: string) => value.replace(/[A-Za-z0-9_-]/g, 'x')

t.test('examples against a fresh instance', async (t) => {
  const app = await build(t, usingPostgres ? { DATABASE_URL: await createScratchDatabase(t, 'examples') } : {})
  const [user, admin] = [await registerUser(app), await registerAdmin(app)]
  const get = async (url: string, headers: Record<string, string> = {}) => app.inject({ method: 'GET', url, headers })

  t.test('the default category is the one a fresh install has', async (t) => {
    const [installed] = (await get('/categories')).json().data as Category[]
    const listed = (example('CategoryListPage').data as Category[]).find((category) => category.isDefault)!
    t.same(namesAndSlugs([listed]), namesAndSlugs([installed!]), 'CategoryListPage')
    t.same(
      namesAndSlugs(example('PostDraft').data.categories),
      namesAndSlugs([{ name: installed!.name, slug: installed!.slug }]),
      'PostDraft',
    )
  })

  t.test('categories made as the examples say are named, slugged and listed as they show', async (t) => {
    const created = await app.inject({
      method: 'POST',
      url: '/categories',
      headers: admin.auth,
      payload: requestExample('/categories', 'post', 'derivedSlug'),
    })
    t.same(
      namesAndSlugs([created.json().data]),
      namesAndSlugs([example('CategoryPhotography').data]),
      'createCategory derives the slug',
    )
    for (const category of example('CategoryListPage').data as Category[]) {
      if (category.isDefault || category.name === created.json().data.name) continue
      await app.inject({ method: 'POST', url: '/categories', headers: admin.auth, payload: { name: category.name } })
    }
    t.same(
      namesAndSlugs((await get('/categories')).json().data),
      namesAndSlugs(example('CategoryListPage').data),
      'listCategories, by slug',
    )
    const renamed = await app.inject({
      method: 'PATCH',
      url: `/categories/${created.json().data.id}`,
      headers: admin.auth,
      payload: requestExample('/categories/{id}', 'patch', 'rename'),
    })
    t.same(
      namesAndSlugs([renamed.json().data]),
      namesAndSlugs([example('CategoryPhotographyRenamed').data]),
      'updateCategory keeps the slug',
    )
  })

  t.test('a post written as the draft example is the PostDraft example', async (t) => {
    const written = await createPost(app, user, requestExample('/posts', 'post', 'draft'))
    const deterministic = ({
      slug,
      title,
      body,
      html,
      excerpt,
      status,
      publishedAt,
      categories,
      thumbnail,
      commentCount,
    }: Json) => ({
      slug,
      title,
      body,
      html,
      excerpt,
      status,
      publishedAt,
      categories: namesAndSlugs(categories),
      thumbnail,
      commentCount,
    })
    t.same(deterministic(written), deterministic(example('PostDraft').data))
  })

  t.test("every post example's excerpt and html are the ones derived from its body", async (t) => {
    for (const post of postExamples) {
      const written = await createPost(app, user, { title: post.title, body: post.body })
      t.equal(written.excerpt, post.excerpt, post.title)
      t.equal(written.html, post.html, post.title)
    }
  })

  t.test('a 3:2 photo gets the thumbnail sizes the examples show', async (t) => {
    const post = await createPost(app, user)
    const uploaded = (await uploadThumbnail(app, post.id, user.auth, await solidImage(1500, 1000, 'jpeg'))).json().data
    const shape = (sizes: Json[]) =>
      sizes.map(({ width, height, contentType, url }) => ({ width, height, contentType, url: formOf(url) }))
    t.same(shape(uploaded.thumbnail.sizes), shape(example('PostPublished').data.thumbnail.sizes))
  })

  t.test('access tokens carry the claims the examples show', async (t) => {
    const issued = claimsOf(user.accessToken)
    for (const name of ['TokenPairAlice', 'TokenPairAliceRotated']) {
      const { accessToken, refreshToken, expiresIn } = example(name).data
      const shown = claimsOf(accessToken)
      t.same(Object.keys(shown).sort(), Object.keys(issued).sort(), `${name}: the claims`)
      t.match(shown, { iss: issued.iss, aud: issued.aud }, `${name}: issuer and audience`)
      t.equal(shown.exp - shown.iat, issued.exp - issued.iat, `${name}: lifetime`)
      t.equal(expiresIn, issued.exp - issued.iat, `${name}: expiresIn`)
      t.equal(formOf(refreshToken), formOf(user.refreshToken), `${name}: the refresh token's form`)
    }
  })

  t.test('ETags and cursors in the examples have the form the service gives them', async (t) => {
    const post = await createPost(app, user, { status: 'published' })
    const etag = (await get(`/posts/${post.id}`)).headers.etag as string
    t.equal(formOf(spec.components.headers.ETag.schema.examples[0]), formOf(etag), 'ETag header')
    const cursors: [string, string, Record<string, string>][] = [
      ['/posts', example('PostListPage').meta.page.nextCursor, {}],
      ['/users', example('UserListPage').meta.page.nextCursor, admin.auth],
    ]
    for (const [path, cursor, auth] of cursors)
      t.equal((await get(`${path}?cursor=${cursor}`, auth)).statusCode, 200, `${path} takes ${cursor}`)
  })

  t.test(
    'Try it out starts from no state: no example on an optional value that comes from an earlier answer',
    async (t) => {
      // Swagger UI fills optional parameters with their examples: a cursor, or an ETag in If-Match,
      // from the examples would page from nowhere or be refused 412 on the reader's own data.
      const fromEarlierAnswers = /^(cursor|if-match|if-none-match)$/i
      for (const [path, methods] of Object.entries(spec.paths)) {
        for (const [method, operation] of Object.entries(
          methods as Record<string, { parameters?: { $ref?: string }[] }>,
        )) {
          for (const reference of operation.parameters ?? []) {
            const parameter = reference.$ref ? spec.components.parameters[reference.$ref.split('/').pop()!] : reference
            if (fromEarlierAnswers.test(parameter.name))
              t.notOk(
                parameter.examples ?? parameter.example ?? parameter.schema?.examples,
                `${method} ${path}: ${parameter.name}`,
              )
          }
        }
      }
    },
  )

  t.test('ping and metrics show what they serve', async (t) => {
    t.equal((await get('/ping')).json().data.version, example('PingOk').data.version, 'the contract version')
    await get(`/posts/${(await createPost(app, user, { status: 'published' })).id}`) // the series the example shows
    const served = (await get('/metrics')).body.split('\n')
    const shown = (spec.paths['/metrics'].get.responses['200'].content['text/plain'].examples.requests.value as string)
      .trim()
      .split('\n')
    for (const line of shown) {
      if (line.startsWith('#')) t.ok(served.includes(line), line)
      else
        t.ok(
          served.some((real) => real.startsWith(line.slice(0, line.lastIndexOf(' ')))),
          `a series named as ${line}`,
        )
    }
  })
})
