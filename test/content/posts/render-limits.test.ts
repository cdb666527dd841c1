// One user's writes cannot fill the rendering queue everyone's writes share: past RENDERS_PER_USER
// of their bodies rendering or waiting at once, their next write is 429 RATE_LIMITED, while another
// user writes as usual.
import t from 'tap'
import { RENDERS_PER_USER } from '../../../src/content/html/post-html.ts'
import { registerUser } from '../../helpers/accounts.ts'
import { build } from '../../helpers/build.ts'
import { wideTable } from '../html/pathological-bodies.ts'

/** The costliest body found for the renderer: a table of 12 500 columns, a few hundred ms each. */
const WIDE_TABLE = wideTable(12_500, 10)

t.test('a flood of costly bodies from one user: theirs past the allowance are 429, others write', async (t) => {
  const app = await build(t)
  const [attacker, other] = [await registerUser(app, 'flooder'), await registerUser(app, 'other')]
  const create = (auth: Record<string, string>, body: string) =>
    app.inject({ method: 'POST', url: '/posts', headers: auth, payload: { title: 'Wide', body } })

  const flood = Array.from({ length: RENDERS_PER_USER + 4 }, () => create(attacker.auth, WIDE_TABLE))
  const meanwhile = create(other.auth, 'An ordinary post.')
  const answers = await Promise.all(flood)
  const statuses = answers.map((answer) => answer.statusCode)
  t.equal(statuses.filter((status) => status === 201).length, RENDERS_PER_USER, `${RENDERS_PER_USER} created`)
  t.equal(statuses.filter((status) => status === 429).length, 4, 'the rest refused')
  const refused = answers.find((answer) => answer.statusCode === 429)!
  t.match(refused.json(), { data: null, error: { code: 'RATE_LIMITED', details: [{ path: 'body' }] } })
  t.ok(Number(refused.headers['retry-after']) > 0, 'Retry-After')
  t.equal((await meanwhile).statusCode, 201, 'another user writes meanwhile')

  // The allowance comes back once the renders are done.
  t.equal((await create(attacker.auth, 'Now a short one.')).statusCode, 201, 'then the user writes again')
})
