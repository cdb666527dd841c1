// Each account's write budget (src/http/limits/write-budget.ts): every write the spec marks
// x-write-budget draws one from it, past it 429 RATE_LIMITED with Retry-After and the IETF draft's
// RateLimit / RateLimit-Policy fields, which every success carries too. Admins have a larger
// budget; an API token draws from its owner's; a second instance on the same database counts the
// same budget. Each test sets its own budget (the test config lifts it for every other file).
import type { FastifyInstance } from 'fastify'
import t from 'tap'
import { registerAdmin, registerUser, type Account } from '../../helpers/accounts.ts'
import { createApiToken } from '../../helpers/api-tokens.ts'
import { build, usingPostgres } from '../../helpers/build.ts'
import { eventually } from '../../helpers/images.ts'
import { createScratchDatabase } from '../../helpers/postgres.ts'

const writePost = (app: FastifyInstance, auth: Account['auth'], payload: Record<string, unknown> = {}) =>
  app.inject({
    method: 'POST',
    url: '/posts',
    headers: auth,
    payload: { title: 'A title', body: 'A body.', ...payload },
  })

const postsBy = (app: FastifyInstance, author: Account) =>
  app.services.database.prisma.post.count({ where: { authorId: author.id } })

/** The RateLimit field's r and t, as numbers. */
function remaining(headers: Record<string, unknown>) {
  const match = /^"writes";r=(\d+);t=(\d+)$/.exec(String(headers.ratelimit))
  return match ? { r: Number(match[1]), t: Number(match[2]) } : null
}

t.test('past the budget a write is 429 with Retry-After and both fields; nothing is written', async (t) => {
  const app = await build(t, { WRITE_BUDGET: '3', WRITE_BUDGET_WINDOW_SECONDS: '60' })
  const [writer, other] = [await registerUser(app), await registerUser(app, 'other')]
  for (let write = 1; write <= 3; write++) {
    const answer = await writePost(app, writer.auth)
    t.equal(answer.statusCode, 201, `write ${write}`)
    t.equal(answer.headers['ratelimit-policy'], '"writes";q=3;w=60', 'the policy on a success')
    t.equal(remaining(answer.headers)?.r, 3 - write, 'r counts down')
    t.ok(remaining(answer.headers)!.t <= 60, `t within the window: ${answer.headers.ratelimit}`)
  }
  const refused = await writePost(app, writer.auth)
  t.equal(refused.statusCode, 429)
  t.equal(refused.json().error.code, 'RATE_LIMITED')
  t.match(refused.json().error.message, /^Too many writes by this account; try again in \d+ s\.$/)
  t.equal(refused.headers['ratelimit-policy'], '"writes";q=3;w=60')
  const { r, t: seconds } = remaining(refused.headers)!
  t.equal(r, 0)
  t.equal(refused.headers['retry-after'], String(Math.max(1, seconds)), 'Retry-After is the RateLimit t')
  t.equal(await postsBy(app, writer), 3, 'the refused write made nothing')

  const invalid = await app.inject({ method: 'POST', url: '/posts', headers: writer.auth, payload: { title: 7 } })
  t.equal(invalid.statusCode, 429, 'refused before its body is validated')
  const update = await app.inject({ method: 'DELETE', url: `/posts/${crypto.randomUUID()}`, headers: writer.auth })
  t.equal(update.statusCode, 429, 'every budgeted operation draws from the one budget')

  t.equal((await writePost(app, other.auth)).statusCode, 201, "another account's budget is its own")
  const read = await app.inject({ method: 'GET', url: '/posts', headers: writer.auth })
  t.equal(read.statusCode, 200, 'reads are not budgeted')
  t.equal(read.headers.ratelimit, undefined, 'and carry no budget fields')
  const account = await app.inject({ method: 'GET', url: '/me/tokens', headers: writer.auth })
  t.equal(account.statusCode, 200, 'nor are the account operations')
  const anonymous = await writePost(app, {} as Account['auth'])
  t.equal(anonymous.statusCode, 401, 'an anonymous write is refused before any count')
  t.equal(anonymous.headers.ratelimit, undefined)
})

t.test('every success of a budgeted write carries the fields; the budget comes back with the window', async (t) => {
  const app = await build(t, { WRITE_BUDGET: '3', WRITE_BUDGET_WINDOW_SECONDS: '2' })
  const writer = await registerUser(app)
  const created = await writePost(app, writer.auth)
  const id = created.json().data.id as string
  const updated = await app.inject({
    method: 'PATCH',
    url: `/posts/${id}`,
    headers: writer.auth,
    payload: { title: 'B' },
  })
  const deleted = await app.inject({ method: 'DELETE', url: `/posts/${id}`, headers: writer.auth })
  t.same(
    [created, updated, deleted].map((answer) => [answer.statusCode, answer.headers['ratelimit-policy']]),
    [201, 200, 204].map((status) => [status, '"writes";q=3;w=2']),
  )
  t.same(
    [created, updated, deleted].map((answer) => remaining(answer.headers)?.r),
    [2, 1, 0],
  )
  t.equal((await writePost(app, writer.auth)).statusCode, 429)
  t.ok(await eventually(async () => (await writePost(app, writer.auth)).statusCode === 201), 'whole again')
})

t.test(
  'restoring a revision is a write like any other: it draws from the budget, and past it restores nothing',
  async (t) => {
    const app = await build(t, { WRITE_BUDGET: '3', WRITE_BUDGET_WINDOW_SECONDS: '60' })
    const writer = await registerUser(app)
    const id = (await writePost(app, writer.auth)).json().data.id as string
    await app.inject({ method: 'PATCH', url: `/posts/${id}`, headers: writer.auth, payload: { title: 'Edited' } })
    const revisions = async () =>
      (await app.inject({ method: 'GET', url: `/posts/${id}/revisions`, headers: writer.auth })).json().data as {
        id: string
      }[]
    const first = (await revisions()).at(-1)!.id
    const restore = () =>
      app.inject({ method: 'POST', url: `/posts/${id}/revisions/${first}/restore`, headers: writer.auth })
    const restored = await restore()
    t.equal(restored.statusCode, 200)
    t.equal(restored.headers['ratelimit-policy'], '"writes";q=3;w=60', 'its success carries the fields')
    t.equal(remaining(restored.headers)?.r, 0, 'the third write of the window')
    t.equal((await revisions()).length, 3)
    const refused = await restore()
    t.same([refused.statusCode, refused.json().error.code], [429, 'RATE_LIMITED'], 'past the budget')
    t.match(refused.headers, { 'retry-after': /^\d+$/, ratelimit: /^"writes";r=0;t=\d+$/ })
    t.equal((await revisions()).length, 3, 'and no revision is written')
  },
)

t.test("an admin's budget is larger, and separate from the users' setting", async (t) => {
  const app = await build(t, { WRITE_BUDGET: '2', WRITE_BUDGET_ADMIN: '5', WRITE_BUDGET_WINDOW_SECONDS: '60' })
  const [admin, user] = [await registerAdmin(app), await registerUser(app)]
  const category = (index: number) =>
    app.inject({
      method: 'POST',
      url: '/categories',
      headers: admin.auth,
      payload: { name: `Budget ${index} ${crypto.randomUUID()}` },
    })
  for (let index = 1; index <= 5; index++) {
    const answer = await category(index)
    t.equal(answer.statusCode, 201, `admin write ${index}`)
    t.equal(answer.headers['ratelimit-policy'], '"writes";q=5;w=60')
  }
  t.equal((await category(6)).statusCode, 429, "past the admins' budget")
  t.same(
    [await writePost(app, user.auth), await writePost(app, user.auth), await writePost(app, user.auth)].map(
      (answer) => answer.statusCode,
    ),
    [201, 201, 429],
    "a user's is the smaller one",
  )
})

t.test("an API token draws from its owner's budget, and its owner's sessions from the same", async (t) => {
  const app = await build(t, { WRITE_BUDGET: '3', WRITE_BUDGET_WINDOW_SECONDS: '60' })
  const owner = await registerUser(app)
  const token = await createApiToken(app, owner, { scopes: ['content:write'] })
  t.equal((await writePost(app, owner.auth)).statusCode, 201, 'with the session')
  t.equal((await writePost(app, token.auth)).statusCode, 201, 'with the token')
  const last = await writePost(app, token.auth)
  t.equal(last.statusCode, 201)
  t.equal(remaining(last.headers)?.r, 0, 'the session and the token spent one budget')
  t.equal((await writePost(app, token.auth)).statusCode, 429, 'the token is refused')
  t.equal((await writePost(app, owner.auth)).statusCode, 429, 'and so is the session')
  const another = await createApiToken(app, owner, { scopes: ['content:write'] })
  t.equal((await writePost(app, another.auth)).statusCode, 429, 'a new token gets no budget of its own')
})

t.test(
  'a second instance on the same database counts the same budget',
  { skip: usingPostgres ? false : 'needs PostgreSQL: the embedded database belongs to one process (set DATABASE_URL)' },
  async (t) => {
    const env = {
      DATABASE_URL: await createScratchDatabase(t, 'write_budget'),
      WRITE_BUDGET: '4',
      WRITE_BUDGET_WINDOW_SECONDS: '60',
    }
    const [one, two] = [await build(t, env), await build(t, env)]
    const writer = await registerUser(one)
    const answers = []
    for (let write = 0; write < 4; write++) answers.push(await writePost(write % 2 === 0 ? one : two, writer.auth))
    t.same(
      answers.map((answer) => [answer.statusCode, remaining(answer.headers)?.r]),
      [
        [201, 3],
        [201, 2],
        [201, 1],
        [201, 0],
      ],
      'both instances draw from one budget',
    )
    for (const [name, app] of [['one', one] as const, ['two', two] as const]) {
      const refused = await writePost(app, writer.auth)
      t.equal(refused.statusCode, 429, `refused on instance ${name}`)
      t.match(refused.headers, { 'retry-after': /^\d+$/, ratelimit: /^"writes";r=0;t=\d+$/ })
    }
  },
)
