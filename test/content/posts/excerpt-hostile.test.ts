// Hostile post bodies over HTTP, on a real port: each is accepted with the excerpt it should have,
// and a /ping sent while the write is in flight is answered. That the excerpt's work is linear is
// shown by counting in test/content/posts/excerpt.test.ts, not here: which of the two answers comes first
// is timing (on PGlite the database runs on the event loop, so the ping waits for the write's own
// SQL either way), and tests assert no timing. Figures measured are in the commit message.
import t from 'tap'
import { build } from '../../helpers/build.ts'
import { registerUser } from '../../helpers/accounts.ts'
import { HOSTILE_BODIES } from '../../helpers/hostile-text.ts'

/** A run of `unit` cut at 280 characters, as an excerpt with no space to cut at is. */
const cutRun = (unit: string) => `${unit.repeat(300).slice(0, 280)}…`
/** Words separated by single spaces, cut at the last space before 280 characters. */
const cutWords = (word: string) => {
  const cut = `${word} `.repeat(300).slice(0, 280)
  return `${cut.slice(0, cut.lastIndexOf(' '))}…`
}

const EXPECTED: Record<keyof typeof HOSTILE_BODIES, string> = {
  'unclosed images': cutRun('!['),
  'unclosed brackets': cutRun('['),
  'bracket-paren pairs': cutRun(']('),
  'empty links without end': cutRun('[]('),
  'links without end': cutRun('[a]('),
  'images without end': cutRun('![a]('),
  backticks: '',
  'unclosed fences': 'x',
  'fences with text': cutWords('a'),
  'emphasis runs': '',
  'white space run': 'x',
  'white lines': 'x',
  'nested quotes': cutWords('>'),
  'nested lists': cutWords('-'),
  'digits without dot': cutRun('1'),
  'indented digits': cutWords('1'),
  'headings too deep': cutWords('#######'),
}

t.test('every hostile body is accepted with its excerpt while /ping is answered', async (t) => {
  const app = await build(t)
  const author = await registerUser(app)
  await app.listen({ host: '127.0.0.1', port: 0 })
  const { port } = app.server.address() as { port: number }
  const base = `http://127.0.0.1:${port}`
  const fetch = app.contractFetch()

  for (const [name, body] of Object.entries(HOSTILE_BODIES)) {
    const write = fetch(`${base}/posts`, {
      method: 'POST',
      headers: { ...author.auth, 'content-type': 'application/json' },
      body: JSON.stringify({ title: name, body }),
    }).then(async (response) => ({
      status: response.status,
      json: (await response.json()) as { data: { excerpt: string } },
    }))
    const ping = await fetch(`${base}/ping`)
    t.equal(ping.status, 200, `${name}: /ping answered`)
    const created = await write
    t.equal(created.status, 201, `${name}: created`)
    t.equal(created.json.data.excerpt, EXPECTED[name], `${name}: its excerpt`)
  }
})

t.test('an edit to the body of the issue, "![" × 50 000, derives its excerpt', async (t) => {
  const app = await build(t)
  const author = await registerUser(app)
  const created = await app.inject({
    method: 'POST',
    url: '/posts',
    headers: author.auth,
    payload: { title: 'T', body: 'Short' },
  })
  const id = created.json().data.id
  const edited = await app.inject({
    method: 'PATCH',
    url: `/posts/${id}`,
    headers: author.auth,
    payload: { body: '!['.repeat(50_000) },
  })
  t.equal(edited.statusCode, 200)
  t.equal(edited.json().data.excerpt, cutRun('!['))
})

t.test('an excerpt cut inside a word never splits a character in two', async (t) => {
  const app = await build(t)
  const author = await registerUser(app)
  // No space to cut at: the cut at 280 UTF-16 units falls between the halves of an emoji.
  const created = await app.inject({
    method: 'POST',
    url: '/posts',
    headers: author.auth,
    payload: { title: 'T', body: `a${'😀'.repeat(200)}` },
  })
  t.equal(created.json().data.excerpt, `a${'😀'.repeat(139)}…`)
})
