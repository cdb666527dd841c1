// A slug is claimed when its post is published: nothing another user is answered may differ
// between "an unpublished post has this slug" and "nobody has this slug" (the derived slug they
// get, a 409, getPostBySlug), while an author still meets their own posts' slugs. A draft whose
// slug a published post took meanwhile gets the next number when it is published; two publishes
// of one slug at once end with one post each on the slug and its next number.
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build } from '../../helpers/build.ts'
import { registerAdmin, registerUser, type Account } from '../../helpers/accounts.ts'
import { createPost } from '../../helpers/posts.ts'
import { changeSlug, readBySlug, uniqueTag } from '../../helpers/slugs.ts'

const create = (app: FastifyInstance, account: Account, payload: Record<string, unknown>) =>
  app.inject({ method: 'POST', url: '/posts', headers: account.auth, payload: { body: 'Text.', ...payload } })

const publish = (app: FastifyInstance, account: Account, id: string) =>
  app.inject({ method: 'PATCH', url: `/posts/${id}`, headers: account.auth, payload: { status: 'published' } })

/** What another user learns about `slug`: the slug a post titled so gets, and the answers to asking for it. */
async function probe(app: FastifyInstance, prober: Account, slug: string, title: string) {
  // Each post is deleted once answered, so that the prober's own posts are not what answers next.
  const remove = async (created: Awaited<ReturnType<typeof create>>) => {
    const id = created.json().data?.id
    if (id) await app.inject({ method: 'DELETE', url: `/posts/${id}`, headers: prober.auth })
  }
  const derived = await create(app, prober, { title })
  await remove(derived)
  const chosen = await create(app, prober, { title: 'Explicit', slug })
  await remove(chosen)
  const other = await create(app, prober, { title: 'Explicit', slug: `${slug}-x` })
  const moved = await changeSlug(app, prober, other.json().data.id, slug)
  await remove(other)
  const read = await readBySlug(app, slug)
  const slugOf = (answer: typeof derived) =>
    answer.json().error?.code ?? (answer.json().data.slug === slug ? 'it' : answer.json().data.slug)
  return {
    derived: [derived.statusCode, slugOf(derived)],
    chosen: [chosen.statusCode, slugOf(chosen)],
    moved: [moved.statusCode, slugOf(moved)],
    anonymousRead: [read.statusCode, read.json().error?.code],
  }
}

// One app for the file (every test uses fresh accounts and slugs): building one per test costs more
// than the tests on a busy machine.
const app = await build(t)

t.test('a draft slug tells another user nothing', async (t) => {
  const [author, prober] = [await registerUser(app, 'author'), await registerUser(app, 'prober')]
  const tag = uniqueTag()
  const [secret, nobody] = [`Secret merger plans ${tag}`, `Nobody wrote this ${tag}`]
  const draft = await createPost(app, author, { title: secret })
  const slug = draft.slug as string
  t.equal(slug, `secret-merger-plans-${tag}`)
  const withDraft = await probe(app, prober, slug, secret)
  const withNobody = await probe(app, prober, `nobody-wrote-this-${tag}`, nobody)
  t.same(withDraft, withNobody, 'the same answers for a draft’s slug as for a slug nobody has')
  t.same(withDraft.derived, [201, 'it'], 'the title yields the bare slug, no -2')
  t.same(withDraft.chosen, [201, 'it'], 'asking for it at creation is no 409')
  t.same(withDraft.moved, [200, 'it'], 'nor when changing a slug')
  t.same(withDraft.anonymousRead, [404, 'POST_NOT_FOUND'])

  // The author still meets their own draft's slug.
  t.equal(
    (await createPost(app, author, { title: secret })).slug,
    `${slug}-2`,
    'their next post of that title is numbered',
  )
  const own = await create(app, author, { title: 'Explicit', slug })
  t.equal(own.statusCode, 409, 'and asking for it is 409')
  t.equal(own.json().error.code, 'POST_SLUG_TAKEN')
  t.equal((await readBySlug(app, slug, author)).json().data.id, draft.id, 'they read their draft by its slug')
  t.equal((await readBySlug(app, slug, prober)).statusCode, 404, 'another user does not')
  const admin = await registerAdmin(app)
  t.equal((await readBySlug(app, slug, admin)).statusCode, 404, 'nor does an admin: by id only')
  t.equal((await app.inject({ method: 'GET', url: `/posts/${draft.id}`, headers: admin.auth })).statusCode, 200)
})

t.test('a draft whose slug was published meanwhile gets the next number when published', async (t) => {
  const [author, other] = [await registerUser(app, 'author'), await registerUser(app, 'other')]
  const tag = uniqueTag()
  const slug = `packing-list-${tag}`
  const draft = await createPost(app, author, { title: 'Packing list', slug })
  const theirs = await createPost(app, other, { title: 'Theirs', slug, status: 'published' })
  t.equal(theirs.slug, slug, 'the other author publishes the slug first')
  const published = await publish(app, author, draft.id)
  t.equal(published.statusCode, 200)
  t.equal(published.json().data.slug, `${slug}-2`, 'the draft is published on the next number')
  t.equal((await readBySlug(app, slug)).json().data.id, theirs.id)
  t.equal((await readBySlug(app, `${slug}-2`)).json().data.id, draft.id)
  // Sent with the publication, a taken slug is the author's own choice now: 409.
  const next = await createPost(app, author, { title: 'Another', slug: `another-${tag}` })
  const chosen = await app.inject({
    method: 'PATCH',
    url: `/posts/${next.id}`,
    headers: author.auth,
    payload: { status: 'published', slug },
  })
  t.equal(chosen.json().error?.code, 'POST_SLUG_TAKEN')

  // Back to draft, a post lets its slugs go: another user may publish on them.
  t.equal(
    (
      await app.inject({
        method: 'PATCH',
        url: `/posts/${theirs.id}`,
        headers: other.auth,
        payload: { status: 'draft' },
      })
    ).statusCode,
    200,
  )
  const successor = await createPost(app, author, { title: 'Successor', slug, status: 'published' })
  t.equal(successor.slug, slug, 'the unpublished post’s slug is free for others')
  t.equal((await publish(app, other, theirs.id)).json().data.slug, `${slug}-3`, 'and it is numbered when republished')
})

t.test('a scheduled post whose slug was published meanwhile gets the next number when its time comes', async (t) => {
  const [author, other] = [await registerUser(app, 'author'), await registerUser(app, 'other')]
  const slug = `autumn-${uniqueTag()}`
  const publishedAt = new Date(Date.now() + 86_400_000).toISOString()
  const scheduled = await createPost(app, author, { title: 'Autumn', slug, status: 'scheduled', publishedAt })
  const theirs = await createPost(app, other, { title: 'Theirs', slug, status: 'published' })
  t.equal(theirs.slug, slug)
  // Its time has come: what the publish-post job runs.
  await app.services.database.prisma.post.update({ where: { id: scheduled.id }, data: { publishedAt: new Date(0) } })
  t.equal(await app.services.posts.publishIfDue(scheduled.id), true)
  t.equal((await readBySlug(app, `${slug}-2`)).json().data.id, scheduled.id, 'published on the next number')
  t.equal((await readBySlug(app, slug)).json().data.id, theirs.id)
})

t.test('two publishes of one slug at once: one has it, the other the next number', async (t) => {
  const authors = [await registerUser(app, 'one'), await registerUser(app, 'two')]
  for (let round = 0; round < 2; round++) {
    const slug = `race-${round}-${uniqueTag()}`
    const drafts = await Promise.all(authors.map((author) => createPost(app, author, { title: 'Race', slug })))
    t.same(
      drafts.map((draft) => draft.slug),
      [slug, slug],
      'two drafts of different authors share a slug',
    )
    const answers = await Promise.all(drafts.map((draft, index) => publish(app, authors[index]!, draft.id)))
    t.same(
      answers.map((answer) => answer.statusCode),
      [200, 200],
    )
    t.same(answers.map((answer) => answer.json().data.slug).sort(), [slug, `${slug}-2`].sort())
    const read = await Promise.all([slug, `${slug}-2`].map((s) => readBySlug(app, s)))
    t.same(
      read.map((answer) => answer.json().data.id).sort(),
      drafts.map((draft) => draft.id).sort(),
      'each slug leads to one of them',
    )
  }
})
