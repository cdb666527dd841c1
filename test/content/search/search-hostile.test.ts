// Hostile search text over HTTP: PostgreSQL's websearch parser keeps one stack entry per `-` in a
// row and refuses more than 32 ("tsquery stack too small", SQLSTATE XX000): that was a 500.
import t from 'tap'
import { build } from '../../helpers/build.ts'
import { registerUser } from '../../helpers/accounts.ts'
import { createPost } from '../../helpers/posts.ts'
import { safeSearchText } from '../../../src/content/search/search-query.ts'

const list = async (app: Awaited<ReturnType<typeof build>>, q: string) =>
  app.inject({ method: 'GET', url: `/posts?q=${encodeURIComponent(q)}` })

t.test('runs of exclusions of any length are answered, with the meaning they have', async (t) => {
  const app = await build(t)
  const author = await registerUser(app)
  const word = `w${Date.now().toString(36)}`
  const other = `o${Date.now().toString(36)}`
  const post = await createPost(app, author, { body: `${word} ${other} e-mail`, status: 'published' })

  for (const q of [
    `${'-'.repeat(40)}${word}`,
    `${'- '.repeat(90)}${word}`,
    `${' -'.repeat(100)}`,
    `${word} ${'-!('.repeat(60)}${other}`,
    `${'-'.repeat(199)}`,
  ]) {
    const response = await list(app, q)
    t.equal(response.statusCode, 200, `${JSON.stringify(q.slice(0, 12))}… (${q.length} characters) is answered`)
  }
  const ids = async (q: string) => (await list(app, q)).json().data.map((found: { id: string }) => found.id)
  t.same(await ids(`${'-'.repeat(40)}${word}`), [post.id], 'an even run of exclusions cancels out, as in PostgreSQL')
  // An exclusion alone lists every other post (other tests' too, on a shared database): not this one.
  t.notOk((await ids(`${'-'.repeat(41)}${word}`)).includes(post.id), 'an odd run excludes the word')
  t.same(await ids(`${word} ${'- '.repeat(34)}${other}`), [post.id], 'the words around an even run are both required')
  t.same(await ids(`${word} -${other}`), [], 'one exclusion works as before')
  t.same(await ids(`e-mail ${word}`), [post.id], 'a hyphen inside a word is no exclusion')
  t.same(
    await ids(`${word} ${'-'.repeat(17)}e-mail`),
    [],
    'a hyphen inside a word after a long run of exclusions either',
  )
})

t.test(
  'rewritten search text parses wherever the original failed, and means the same wherever it did not',
  async (t) => {
    const app = await build(t)
    const prisma = app.services.database.prisma
    const documents = ['', 'alpha', 'beta', 'e-mail', 'alpha beta', 'alpha e-mail', 'beta e-mail', 'alpha beta e-mail']
    const matches = async (q: string) => {
      try {
        const rows = await prisma.$queryRaw<{ m: boolean[] }[]>`
        select array_agg(to_tsvector('english', d) @@ websearch_to_tsquery('english', ${q}) order by d) as m from unnest(${documents}::text[]) d`
        return JSON.stringify(rows[0]!.m)
      } catch {
        return 'error'
      }
    }
    // Seeded, so a failure can be replayed: 300 queries of the parser's operators, words and long runs.
    let seed = 14
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648
    const pieces = [
      '-'.repeat(20),
      '- '.repeat(12),
      '-',
      '-',
      ' ',
      '"',
      '!',
      '(',
      ')',
      '|',
      '&',
      '<',
      ':',
      '\t',
      'alpha',
      'beta',
      'or',
      'e-mail',
      '--',
    ]
    let failedBefore = 0
    for (let i = 0; i < 300; i++) {
      let q = ''
      for (let length = Math.floor(random() * 30); length > 0; length--)
        q += pieces[Math.floor(random() * pieces.length)]
      q = q.slice(0, 200)
      const [before, after] = [await matches(q), await matches(safeSearchText(q))]
      if (before === 'error') failedBefore++
      else if (after !== before) t.fail(`${JSON.stringify(q)} means something else once rewritten`)
      if (after === 'error') t.fail(`${JSON.stringify(q)} still fails once rewritten`)
    }
    t.ok(failedBefore > 0, `${failedBefore} of 300 queries failed PostgreSQL's parser as written; none once rewritten`)
  },
)
