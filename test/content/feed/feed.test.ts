// getFeed: a valid Atom 1.0 document (read by a strict XML parser, every element RFC 4287 requires
// checked) of the newest published posts, whose entries say what their posts say; drafts and
// scheduled posts never in it; a category's feed by id or by slug. On PostgreSQL each test has a
// database of its own, so that the feed holds its posts only.
import t, { type Test } from 'tap'
import { uuidV5OfUrl } from '../../../src/content/slugs/uuid-v5.ts'
import { registerAdmin, registerUser } from '../../helpers/accounts.ts'
import { checkAtom, childrenOf, parseXml, textOf, type XmlElement } from '../../helpers/atom.ts'
import { build, usingPostgres } from '../../helpers/build.ts'
import { createCategory } from '../../helpers/content.ts'
import { createScratchDatabase } from '../../helpers/postgres.ts'
import { createPost } from '../../helpers/posts.ts'

type App = Awaited<ReturnType<typeof build>>

const ownDatabase = async (t: Test): Promise<Record<string, string>> =>
  usingPostgres ? { DATABASE_URL: await createScratchDatabase(t, 'feed') } : {}

async function feedOf(app: App, url = '/feed.atom') {
  const response = await app.inject({ method: 'GET', url })
  if (response.statusCode !== 200) throw new Error(`${url}: ${response.statusCode} ${response.body}`)
  return { response, feed: parseXml(response.rawPayload) }
}

const entryIds = (feed: XmlElement) => childrenOf(feed, 'entry').map((entry) => textOf(entry, 'id'))
const linkOf = (element: XmlElement, rel: string) =>
  childrenOf(element, 'link').find((link) => (link.attributes.rel ?? 'alternate') === rel)?.attributes

t.test('the newest published posts, each entry as its post says; drafts and scheduled posts never', async (t) => {
  const app = await build(t, {
    ...(await ownDatabase(t)),
    PUBLIC_URL: 'https://blog.example.org/',
    FEED_TITLE: 'Notes & <Letters>',
  })

  const empty = (await feedOf(app)).feed
  checkAtom(t, empty)
  t.equal(childrenOf(empty, 'entry').length, 0, 'no posts: no entries')
  t.equal(textOf(empty, 'updated'), '1970-01-01T00:00:00.000Z', 'and updated at the epoch')

  const [author, admin] = [await registerUser(app, 'writer'), await registerAdmin(app)]
  const category = await createCategory(app, admin, { name: 'Trips & "Tours"' })
  const older = await createPost(app, author, { status: 'published', title: 'Older', categoryIds: [category.id] })
  const draft = await createPost(app, author, { title: 'A draft' })
  const scheduled = await createPost(app, author, {
    status: 'scheduled',
    publishedAt: new Date(Date.now() + 86_400_000).toISOString(),
  })
  const newer = await createPost(app, author, {
    status: 'published',
    title: 'Newer',
    body: 'Line one\n\nLine two',
    excerpt: 'A summary',
  })

  const { response, feed } = await feedOf(app)
  checkAtom(t, feed)
  t.equal(response.headers['content-type'], 'application/atom+xml; charset=utf-8')
  t.same(entryIds(feed), [`urn:uuid:${newer.id}`, `urn:uuid:${older.id}`], 'published posts, newest first')
  t.notOk(response.body.includes(draft.id) || response.body.includes(scheduled.id), 'no draft, no scheduled post')

  const self = 'https://blog.example.org/feed.atom'
  t.equal(textOf(feed, 'id'), `urn:uuid:${uuidV5OfUrl(self)}`, "the feed's id: the name-based UUID of its URL")
  t.equal(textOf(feed, 'title'), 'Notes & <Letters>', 'FEED_TITLE, escaped and read back')
  t.equal(textOf(childrenOf(feed, 'author')[0]!, 'name'), 'Notes & <Letters>')
  t.equal(textOf(feed, 'updated'), newer.publishedAt, "updated: the newest post's publishedAt")
  t.same(linkOf(feed, 'self'), { rel: 'self', type: 'application/atom+xml', href: self })
  t.same(linkOf(feed, 'alternate'), {
    rel: 'alternate',
    type: 'application/json',
    href: 'https://blog.example.org/posts',
  })

  const [first, second] = childrenOf(feed, 'entry') as [XmlElement, XmlElement]
  t.equal(textOf(first, 'title'), 'Newer')
  t.equal(textOf(first, 'published'), newer.publishedAt)
  t.equal(textOf(first, 'updated'), newer.publishedAt, 'updated is publishedAt too')
  t.equal(textOf(childrenOf(first, 'author')[0]!, 'name'), 'Test writer')
  t.same(linkOf(first, 'alternate'), {
    rel: 'alternate',
    type: 'application/json',
    href: `https://blog.example.org/posts/by-slug/${newer.slug}`,
  })
  t.equal(textOf(first, 'summary'), 'A summary')
  t.equal(childrenOf(first, 'content')[0]!.attributes.type, 'html')
  t.equal(textOf(first, 'content'), '<p>Line one</p>\n<p>Line two</p>\n', 'the body as rendered')
  t.equal(textOf(first, 'content'), newer.html, 'the post’s own html')
  t.same(
    childrenOf(second, 'category').map((element) => element.attributes),
    [{ term: category.slug, label: 'Trips & "Tours"' }],
    'categories: slug as term, name as label',
  )

  // The post one reads by the link has the id, title and time the entry gave.
  const read = await app.inject({ method: 'GET', url: new URL(linkOf(first, 'alternate')!.href!).pathname })
  t.equal(read.json().data.title, textOf(first, 'title'))

  await app.inject({
    method: 'PATCH',
    url: `/posts/${draft.id}`,
    headers: author.auth,
    payload: { status: 'published' },
  })
  t.same(entryIds((await feedOf(app)).feed)[0], `urn:uuid:${draft.id}`, 'a draft published: first at once')
})

t.test('at most 20 entries: the 20 newest', async (t) => {
  const app = await build(t, await ownDatabase(t))
  const author = await registerUser(app)
  const posts = []
  for (let index = 0; index < 22; index++) posts.push(await createPost(app, author, { status: 'published' }))
  const { feed } = await feedOf(app)
  checkAtom(t, feed)
  t.same(
    entryIds(feed),
    posts
      .slice(2)
      .reverse()
      .map((post) => `urn:uuid:${post.id}`),
  )
})

t.test("a category's feed, by id or by slug; an unknown category is 404, a malformed one 400", async (t) => {
  const app = await build(t, { ...(await ownDatabase(t)), PUBLIC_URL: 'https://blog.example.org/api' })
  const [author, admin] = [await registerUser(app), await registerAdmin(app)]
  const [travel, food] = [await createCategory(app, admin, { name: 'Travel' }), await createCategory(app, admin)]
  const inTravel = await createPost(app, author, { status: 'published', categoryIds: [travel.id, food.id] })
  await createPost(app, author, { status: 'published', categoryIds: [food.id] })

  const bySlug = await feedOf(app, `/feed.atom?category=${travel.slug}`)
  const byId = await feedOf(app, `/feed.atom?category=${travel.id.toUpperCase()}`)
  checkAtom(t, bySlug.feed)
  t.same(entryIds(bySlug.feed), [`urn:uuid:${inTravel.id}`], 'only the posts filed there')
  t.equal(byId.response.body, bySlug.response.body, 'by id (in any case) or by slug: the same document')
  t.equal(byId.response.headers.etag, bySlug.response.headers.etag)
  const self = `https://blog.example.org/api/feed.atom?category=${travel.id}`
  t.equal(linkOf(bySlug.feed, 'self')?.href, self, 'its self link names the category by id')
  t.equal(linkOf(bySlug.feed, 'alternate')?.href, `https://blog.example.org/api/posts?category=${travel.id}`)
  t.equal(textOf(bySlug.feed, 'id'), `urn:uuid:${uuidV5OfUrl(self)}`)
  t.not(textOf(bySlug.feed, 'id'), textOf((await feedOf(app)).feed, 'id'), 'not the main feed id')
  t.equal(textOf(bySlug.feed, 'title'), 'Blog: Travel')

  for (const unknown of ['no-such-category', '0192f7b1-5e6f-7a80-9b1c-d2e3f4a5b6c7']) {
    const response = await app.inject({ method: 'GET', url: `/feed.atom?category=${unknown}` })
    t.equal(response.statusCode, 404, unknown)
    t.match(response.headers['content-type'], /^application\/json/, 'errors are envelopes')
    t.equal(response.json().error.code, 'CATEGORY_NOT_FOUND')
  }
  for (const malformed of ['Not%20a%20slug', 'a'.repeat(61), '--', '']) {
    const response = await app.inject({ method: 'GET', url: `/feed.atom?category=${malformed}` })
    t.equal(response.statusCode, 400, JSON.stringify(malformed))
    t.equal(response.json().error.details[0].path, '/query/category')
  }
})

t.test("the feed's id is the same on every instance and after a restart", async (t) => {
  const env = { ...(await ownDatabase(t)), PUBLIC_URL: 'https://blog.example.org' }
  const one = await build(t, env)
  const other = await build(t, env)
  const ids = [textOf((await feedOf(one)).feed, 'id'), textOf((await feedOf(other)).feed, 'id')]
  t.equal(ids[0], ids[1])
  t.equal(ids[0], 'urn:uuid:3507cfad-3607-5df3-95ec-22d1ce306f76', 'the one the spec example shows')
})
