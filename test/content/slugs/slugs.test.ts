// Post slugs at creation (the spec's PostSlug): derived from the title, numbered when taken by a
// published post or one of the author's own (another author's draft claims nothing: see
// draft-slug-oracle.test.ts), chosen by the author (409 when taken, and then nothing is written),
// derived from titles in other scripts, and refused when they break the pattern or its bound.
import t from 'tap'
import { build } from '../../helpers/build.ts'
import { registerUser } from '../../helpers/accounts.ts'
import { createPost } from '../../helpers/posts.ts'
import { fallbackSlug, ideographs, readBySlug, uniqueTag } from '../../helpers/slugs.ts'
import { loadSpec } from '../../../src/spec.ts'

const conflictExample = (
  loadSpec() as unknown as {
    components: { responses: { Conflict: { content: Record<string, { examples: Record<string, any> }> } } } // eslint-disable-line @typescript-eslint/no-explicit-any -- examples are free-form JSON
  }
).components.responses.Conflict.content['application/json']!.examples.postSlugTaken.value.error

t.test('createPost derives the slug from the title, and numbers it when a published or own post has it', async (t) => {
  const app = await build(t)
  const [author, other] = [await registerUser(app), await registerUser(app, 'other')]
  const tag = uniqueTag()

  const first = await createPost(app, author, { title: `Packing list ${tag}` })
  t.equal(first.slug, `packing-list-${tag}`, 'a draft has one too')
  const second = await createPost(app, other, { title: `Packing list ${tag}`, status: 'published' })
  t.equal(second.slug, `packing-list-${tag}`, "not numbered: the first is another author's draft, which claims nothing")
  const third = await createPost(app, author, { title: `  Packing — list, ${tag}!  ` })
  t.equal(third.slug, `packing-list-${tag}-2`, 'the same words in other punctuation: numbered (published, and own)')
  const long = await createPost(app, author, { title: `${tag} ${'mountain '.repeat(21)}`.slice(0, 200) })
  t.equal(long.slug, `${tag}${'-mountain'.repeat(5)}`, 'cut to 60 characters at a word boundary')

  const read = await readBySlug(app, second.slug as string)
  t.equal(read.statusCode, 200)
  t.same(read.json().data, (await app.inject({ method: 'GET', url: `/posts/${second.id}` })).json().data)
})

t.test('a slug the author chooses is theirs, or 409 POST_SLUG_TAKEN and nothing is written', async (t) => {
  const app = await build(t)
  const [author, other] = [await registerUser(app), await registerUser(app, 'other')]
  const tag = uniqueTag()
  const { prisma } = app.services.database

  const chosen = await createPost(app, author, {
    title: 'Whatever the title',
    slug: `via-alpina-${tag}`,
    status: 'published',
  })
  t.equal(chosen.slug, `via-alpina-${tag}`)
  const taken = await app.inject({
    method: 'POST',
    url: '/posts',
    headers: other.auth,
    payload: { title: `Refused ${tag}`, body: 'Body.', slug: `via-alpina-${tag}` },
  })
  t.equal(taken.statusCode, 409)
  t.same(taken.json().error, conflictExample, 'the error the spec shows')
  t.equal(await prisma.post.count({ where: { title: `Refused ${tag}` } }), 0, 'no post was written')

  const derived = await createPost(app, other, { title: `Via Alpina ${tag}` })
  t.equal(derived.slug, `via-alpina-${tag}-2`, 'a derived slug that is taken is numbered, never refused')
  const numbered = await createPost(app, other, { title: 'Any', slug: `via-alpina-${tag}-7` })
  t.equal(numbered.slug, `via-alpina-${tag}-7`, 'a number may be chosen')
  const next = await createPost(app, other, { title: `Via Alpina ${tag}` })
  t.equal(next.slug, `via-alpina-${tag}-8`, 'derived: the number after the highest in use')
})

t.test('titles in other scripts: transliterated, or a slug from their hash', async (t) => {
  const app = await build(t)
  const author = await registerUser(app)
  const tag = uniqueTag()
  const slugOf = async (title: string) => (await createPost(app, author, { title })).slug

  t.equal(await slugOf(`Привет, мир ${tag}`), `privet-mir-${tag}`, 'Cyrillic')
  t.equal(await slugOf(`Καλημέρα κόσμε ${tag}`), `kalimera-kosme-${tag}`, 'Greek')
  t.equal(await slugOf(`Crème brûlée für Straße ${tag}`), `creme-brulee-fur-strasse-${tag}`, 'Latin: accents dropped')
  t.equal(await slugOf(`ﬁnance ½ ${tag}`), `finance-1-2-${tag}`, 'compatibility forms')

  const chinese = `東京の夏${ideographs(tag)}`
  t.equal(await slugOf(chinese), fallbackSlug(chinese), 'ideographs: post- and the hash of the title')
  t.equal(await slugOf(chinese), `${fallbackSlug(chinese)}-2`, 'the same title again is numbered')
  const emoji = `🎉🏔️ ${ideographs(tag)} !!!`
  t.equal(await slugOf(emoji), fallbackSlug(emoji), 'emoji and punctuation')
  t.equal((await readBySlug(app, fallbackSlug(chinese), author)).json().data.title, chinese)
})

t.test('slugs that break the pattern or its bound are 400, in the path and in bodies', async (t) => {
  const app = await build(t)
  const author = await registerUser(app)
  const post = await createPost(app, author)
  const tooLong = 'a'.repeat(81)
  for (const slug of ['Capital', 'trailing-', '-leading', 'double--hyphen', 'snake_case', 'ümlaut', tooLong]) {
    const read = await readBySlug(app, slug)
    t.equal(read.statusCode, 400, `GET /posts/by-slug/${slug}`)
    t.match(read.json().error, { code: 'VALIDATION_FAILED', details: [{ path: '/params/slug' }] })
    for (const [method, url] of [
      ['POST', '/posts'],
      ['PATCH', `/posts/${post.id}`],
    ] as const) {
      const written = await app.inject({ method, url, headers: author.auth, payload: { title: 'T', body: 'B', slug } })
      t.equal(written.statusCode, 400, `${method} ${url} with slug ${slug}`)
      t.match(written.json().error.details, [{ path: '/body/slug' }])
    }
  }
  t.equal((await readBySlug(app, 'a'.repeat(80))).statusCode, 404, '80 characters is a slug, of no post')
  const title = await app.inject({
    method: 'POST',
    url: '/posts',
    headers: author.auth,
    payload: { title: 'x'.repeat(201), body: 'B' },
  })
  t.equal(title.statusCode, 400, 'a slug is derived from at most 200 characters of title')
})
