// Two instances on one PostgreSQL: a slug changed through one is seen through the other, whose
// slug map and post cache held the post under its old slug: the new slug leads to the post as it
// is now at the first read (before the writer's NOTIFY need arrive), the old one still leads to it
// and answers the new slug, and a slug let go and taken by another post leads there once the
// notification has come.
import t from 'tap'
import { build, usingPostgres } from '../../../helpers/build.ts'
import { registerUser } from '../../../helpers/accounts.ts'
import { eventually } from '../../../helpers/images.ts'
import { createScratchDatabase } from '../../../helpers/postgres.ts'
import { createPost } from '../../../helpers/posts.ts'
import { changeSlug, readBySlug } from '../../../helpers/slugs.ts'

const skip = usingPostgres ? false : 'needs PostgreSQL: instances share a database only there (set DATABASE_URL)'

type App = Awaited<ReturnType<typeof build>>

t.test('a slug changed through one instance, read through the other', { skip }, async (t) => {
  const url = await createScratchDatabase(t, 'slug_fleet')
  const writer = await build(t, { DATABASE_URL: url })
  const reader = await build(t, { DATABASE_URL: url })
  const { prisma } = writer.services.database
  t.ok(
    await eventually(async () => {
      const rows = await prisma.$queryRaw<{ n: number }[]>`
        select count(*)::int as n from pg_stat_activity
        where datname = current_database() and application_name = 'blog-api-listen'`
      return rows[0]!.n === 2
    }),
    'both instances listen',
  )
  const author = await registerUser(writer)
  const other = await registerUser(writer, 'other')
  const post = await createPost(writer, author, { title: 'Six days on the Via Alpina', status: 'published' })
  const [oldSlug, newSlug] = [post.slug as string, 'via-alpina']

  // Every answer the reader gives is recorded: a slug must never lead it to another post.
  const seen: { slug: string; id?: string; current?: string }[] = []
  const read = async (app: App, slug: string) => {
    const data = (await readBySlug(app, slug)).json().data
    seen.push({ slug, id: data?.id, current: data?.slug })
    return data as { id: string; slug: string } | null
  }
  /**
   * Which post a slug leads the reader to, and the slug it shows, for comparing whole: t.match
   * takes a string for a part, and 'via-alpina' is a part of 'six-days-on-the-via-alpina'.
   */
  const leadsTo = async (slug: string) => {
    const data = await read(reader, slug)
    return data && { id: data.id, slug: data.slug }
  }
  /**
   * Reads through the reader until `expected` holds. The deadline, far below the caches' TTL
   * (300 s), only turns a notification that never comes into a failure.
   */
  const readUntil = (slug: string, expected: (data: { id: string; slug: string } | null) => boolean) =>
    eventually(async () => expected(await read(reader, slug)), 30_000, 20)

  await read(reader, oldSlug)
  const hits = reader.services.slugCache.stats().hits
  t.equal((await read(reader, oldSlug))?.id, post.id)
  t.equal(reader.services.slugCache.stats().hits, hits + 1, 'the reader holds the slug in memory')

  t.equal((await changeSlug(writer, author, post.id, newSlug)).statusCode, 200)
  // At once: the reader reads a slug it does not hold from the database, which names the current
  // slug, and its cached post showing another one is read again, notification or not.
  t.same(await leadsTo(newSlug), { id: post.id, slug: newSlug }, 'the new slug shows the post as it is now')
  // That read took the post afresh, so the old slug, which the reader may still hold, shows it too.
  t.same(await leadsTo(oldSlug), { id: post.id, slug: newSlug }, 'the old slug still does, answering the new one')

  // A change the reader has not heard of (made in the database directly, which sends no NOTIFY,
  // as when the notification is still on its way): a slug it does not hold is read from the
  // database, which names the current slug, and its cached post, showing another, is read again.
  t.equal((await read(reader, newSlug))?.slug, newSlug, 'the reader holds the post')
  await prisma.$transaction([
    prisma.$executeRaw`insert into post_slugs (slug, post_id, stem, suffix) values ('via-alpina-direct', ${post.id}::uuid, 'via-alpina-direct', 1)`,
    prisma.$executeRaw`update posts set slug = 'via-alpina-direct' where id = ${post.id}::uuid`,
  ])
  t.same(
    await leadsTo('via-alpina-direct'),
    { id: post.id, slug: 'via-alpina-direct' },
    'a new slug shows the post as it is now, notification or not',
  )

  // Ten newer slugs push the old one out; another post takes it.
  for (let n = 1; n <= 10; n++) await changeSlug(writer, author, post.id, `via-alpina-v${n}`)
  const taker = await createPost(writer, other, { title: 'Taker', slug: oldSlug, status: 'published' })
  // The reader still holds the old slug as leading to the post: only the notification of the
  // writes that let it go makes the reader forget it.
  t.ok(await readUntil(oldSlug, (data) => data?.id === taker.id), 'the slug let go leads to its new post')
  t.equal((await read(reader, oldSlug))?.id, taker.id, 'and keeps doing so')
  t.equal((await read(reader, 'via-alpina-v10'))?.slug, 'via-alpina-v10')

  t.same(
    seen.filter(({ id }) => id !== undefined && id !== post.id && id !== taker.id),
    [],
    'no slug led the reader to a post it never belonged to',
  )
  t.same(
    seen.filter(({ slug, id }) => slug !== oldSlug && id !== post.id),
    [],
    "the post's other slugs led to it, every time",
  )
})
