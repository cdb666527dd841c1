// Whatever users write, the feed stays a well-formed XML 1.0 document, and a parser reads back each
// title, body, excerpt, author name and category name exactly as the API returns it, less only the
// characters XML 1.0 cannot carry (U+FFFE and U+FFFF, which the API stores, and the C0 control
// characters, which it refuses now but which text stored before may hold: they are written to the
// rows directly). Unpaired surrogates never reach the database (refused in a JSON body), so they
// are tested on the renderer itself.
import t from 'tap'
import { renderAtom } from '../../../src/content/feed/atom.ts'
import type { Post } from '../../../src/content/posts/post-view.ts'
import { xmlAttribute, xmlText } from '../../../src/content/feed/xml-text.ts'
import { registerAdmin, registerUser } from '../../helpers/accounts.ts'
import { checkAtom, childrenOf, parseXml, textOf } from '../../helpers/atom.ts'
import { build } from '../../helpers/build.ts'
import { createCategory } from '../../helpers/content.ts'
import { createPost } from '../../helpers/posts.ts'

/** The text less what XML 1.0 forbids, code point by code point: the reference the escaper must meet. */
const allowed = (text: string) =>
  [...text]
    .filter((character) => {
      const code = character.codePointAt(0)!
      const paired = code > 0xffff || code < 0xd800 || code > 0xdfff
      return paired && (code >= 0x20 || [0x9, 0xa, 0xd].includes(code)) && code !== 0xfffe && code !== 0xffff
    })
    .join('')

const CONTROLS = Array.from({ length: 31 }, (_, index) => String.fromCharCode(index + 1)).join('')
const HOSTILE = [
  `<>&"' ]]> <![CDATA[x]]> &amp; &#0; <script>alert(1)</script> <!-- x -->`,
  `tab\there\r\nCRLF\rCR\nLF`,
  '\uFFFE\uFFFF \u007F \u0085 \u2028\u2029 \uFEFF \uFDD0',
  'emoji 😀👩‍💻 astral 𝔘𝔫𝔦 \u{10FFFF} flags 🇨🇭 combining é',
]
/** The hostile texts, cut at `max` code points (as the contract counts). */
const hostile = (label: string, max = 100_000) => [...`${label}: ${HOSTILE.join(' | ')}`].slice(0, max).join('')

t.test('hostile titles, bodies, excerpts, author and category names round-trip through the feed', async (t) => {
  const app = await build(t)
  const [admin, author] = [await registerAdmin(app), await registerUser(app)]
  const rename = await app.inject({
    method: 'PATCH',
    url: '/me',
    headers: author.auth,
    payload: { name: hostile('A', 100 - CONTROLS.length) },
  })
  t.equal(rename.statusCode, 200)
  const category = await createCategory(app, admin, { name: `C <&"'>\uFFFF😀` })
  const post = await createPost(app, author, {
    status: 'published',
    title: hostile('T', 200 - CONTROLS.length),
    body: hostile('B'),
    excerpt: hostile('E', 500 - CONTROLS.length),
    categoryIds: [category.id],
  })
  // Control characters as text stored before they were refused holds them (no cache holds these
  // rows yet: a new post is in none, and nothing was read).
  const { prisma } = app.services.database
  await prisma.$executeRaw`update posts set title = title || ${CONTROLS}, excerpt = excerpt || ${CONTROLS},
    html = html || ${CONTROLS} where id = ${post.id}::uuid`
  await prisma.$executeRaw`update users set name = name || ${CONTROLS} where id = ${author.id}::uuid`
  await prisma.$executeRaw`update categories set name = name || ${'\u0001'} where id = ${category.id}::uuid`
  const stored = (await app.inject({ method: 'GET', url: `/posts/${post.id}` })).json().data
  t.match(stored.title, /\uFFFE/, 'the API keeps what XML cannot carry')
  t.ok(stored.title.includes('\u0001'), 'and text stored before shows it too')

  const url = `/feed.atom?category=${category.slug}`
  const response = await app.inject({ method: 'GET', url })
  const feed = parseXml(response.rawPayload)
  checkAtom(t, feed)
  const [entry] = childrenOf(feed, 'entry')
  t.equal(textOf(entry!, 'title'), allowed(stored.title), 'the title')
  t.equal(textOf(entry!, 'content'), allowed(stored.html), 'the rendered body, line breaks and carriage returns too')
  t.equal(textOf(entry!, 'summary'), allowed(stored.excerpt), 'the excerpt')
  t.equal(textOf(childrenOf(entry!, 'author')[0]!, 'name'), allowed(stored.author.name), "the author's name")
  t.same(
    childrenOf(entry!, 'category')[0]!.attributes,
    { term: category.slug, label: allowed(stored.categories[0].name) },
    "the category's name, in an attribute",
  )
  t.equal(textOf(feed, 'title'), allowed(`Blog: ${stored.categories[0].name}`), "the feed's title")
})

const post = (fields: Partial<Post>): Post => ({
  id: '0192f7d1-2e3f-7a4b-8c5d-6e7f8091a2b3',
  title: 'T',
  body: 'B',
  excerpt: 'E',
  status: 'published',
  publishedAt: '2025-03-14T08:30:00.000Z',
  author: { id: '0192f7c4-5a2b-7c3d-8e4f-123456789abc', name: 'A' },
  categories: [{ id: '0192f7b1-5e6f-7a80-9b1c-d2e3f4a5b6c7', name: 'N', slug: 's' }],
  thumbnail: null,
  commentCount: 0,
  createdAt: '2025-03-14T08:30:00.000Z',
  updatedAt: '2025-03-14T08:30:00.000Z',
  ...fields,
})

t.test('unpaired surrogates, anywhere, are left out: the document stays well-formed UTF-8', async (t) => {
  const broken = 'a\uD800b\uDC00c\uDBFF\uD83D😀\uDE00d'
  const head = { id: 'urn:uuid:x', title: broken, author: broken, self: 'https://x/feed.atom' }
  const bytes = renderAtom(
    { ...head, alternate: { href: 'https://x/posts', type: 'application/json' } },
    [post({ title: broken, body: broken, excerpt: broken, author: { id: 'x', name: broken } })],
    'https://x',
  )
  const feed = parseXml(bytes)
  const [entry] = childrenOf(feed, 'entry')
  for (const name of ['title', 'content', 'summary']) t.equal(textOf(entry!, name), 'abc😀d', name)
  t.equal(textOf(feed, 'title'), 'abc😀d')
})

t.test('the escaper: linear output, one fixed expansion per character, whatever the mix', async (t) => {
  // The bound shown by sizes: each character becomes at most 6 bytes, and n copies of a text
  // become exactly n copies of its escaping.
  const unit = `&<>"\t\n\r\u0001\uFFFE\uD800x😀`
  for (const escape of [xmlText, xmlAttribute]) {
    const one = escape(unit)
    const many = escape(unit.repeat(50_000))
    t.equal(many, one.repeat(50_000), `${escape.name}: n copies in, n copies out`)
    t.ok(Buffer.byteLength(one) <= 6 * unit.length, `${escape.name}: ${Buffer.byteLength(one)} bytes`)
  }
  t.equal(xmlText(unit), '&amp;&lt;&gt;"\t\n&#13;x😀')
  t.equal(xmlAttribute(unit), '&amp;&lt;&gt;&quot;&#9;&#10;&#13;x😀')
})
