// Closing the service lets the bodies waiting in the renderer's fair queue render first: they wait
// outside piscina (src/content/html/post-html.ts), so closing piscina alone would refuse them.
import t from 'tap'
import { LARGE_RENDER_COST } from '../../../src/content/html/post-html.ts'
import { registerUser } from '../../helpers/accounts.ts'
import { build } from '../../helpers/build.ts'

t.test('closing lets the bodies waiting in the fair queue render first', async (t) => {
  const app = await build(t)
  const user = await registerUser(app, 'writer')
  const body = 'a|b\n-|-\n' + 'a|b\n'.repeat(LARGE_RENDER_COST / 4)
  // One renders, two wait in the large lane's queue (outside piscina's) when the service closes.
  const writes = Array.from({ length: 3 }, () =>
    app.inject({ method: 'POST', url: '/posts', headers: user.auth, payload: { title: 'Late', body } }),
  )
  await new Promise((resolve) => setImmediate(resolve))
  const closed = app.close()
  t.same(
    (await Promise.all(writes)).map((answer) => answer.statusCode),
    [201, 201, 201],
    'every write answered',
  )
  await closed
})
