// Fair turns at the renderer over HTTP (issue 29's render flood), counted in answers, not timed:
// when another user's post is answered, how many of the flooder's posts were answered before it.
import t from 'tap'
import { LARGE_RENDER_COST } from '../../../src/content/html/post-html.ts'
import { registerUser } from '../../helpers/accounts.ts'
import { build } from '../../helpers/build.ts'

/** The table (`a|b` rows, two cells each), twice the large lane's threshold: tenths of a second of rendering. */
const TABLE = 'a|b\n-|-\n' + 'a|b\n'.repeat((2 * LARGE_RENDER_COST) / 4)

t.test("another user's posts are rendered ahead of a flooder's backlog", async (t) => {
  const app = await build(t)
  const [attacker, other] = [await registerUser(app, 'flooder'), await registerUser(app, 'other')]
  const answered: string[] = []
  const create = async (auth: Record<string, string>, label: string, body: string) => {
    const answer = await app.inject({ method: 'POST', url: '/posts', headers: auth, payload: { title: label, body } })
    answered.push(label)
    return answer.statusCode
  }
  // The small lane's thread started, so that the one-line post does not wait for it to load.
  t.equal(await create(other.auth, 'warm small', 'A short post.'), 201)
  answered.length = 0

  const FLOOD = 4
  const flood = Array.from({ length: FLOOD }, (_, i) => create(attacker.auth, `flood ${i}`, TABLE))
  const oneLine = create(other.auth, 'one line', 'An ordinary post.')
  const costly = create(other.auth, 'costly', TABLE)
  t.same(await Promise.all([...flood, oneLine, costly]), Array(FLOOD + 2).fill(201), 'every post created')
  const floodBefore = (label: string) => answered.slice(0, answered.indexOf(label)).filter((l) => l.startsWith('flood'))
  // A short body renders on the small lane's thread: at most the flood body rendering meanwhile ends first.
  t.ok(
    floodBefore('one line').length <= 1,
    `one-line post answered after ${floodBefore('one line').length} of ${FLOOD} flood posts (one queue: ${FLOOD})`,
  )
  // A long one takes its turn on the large lane: after the body rendering and at most one turn of the flooder.
  t.ok(
    floodBefore('costly').length <= 2,
    `costly post answered after ${floodBefore('costly').length} of ${FLOOD} flood posts (one queue: ${FLOOD})`,
  )
})
