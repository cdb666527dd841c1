// updateMedia: the alternative text set, kept empty (a decorative image), removed with null, and
// refused past its bounds with a clear 400.
import t from 'tap'
import { build } from '../../helpers/build.ts'
import { registerUser } from '../../helpers/accounts.ts'
import { createMedia } from '../../helpers/media.ts'

t.test('alt is set, emptied and removed; bad values are 400 naming /body/alt', async (t) => {
  const app = await build(t)
  const owner = await registerUser(app)
  const item = await createMedia(app, owner.auth)
  const patch = (payload: unknown) =>
    app.inject({ method: 'PATCH', url: `/media/${item.id}`, headers: owner.auth, payload: payload as object })

  const set = await patch({ alt: 'The Pizol huts under fresh snow' })
  t.equal(set.statusCode, 200)
  t.equal(set.json().data.alt, 'The Pizol huts under fresh snow')
  const read = await app.inject({ method: 'GET', url: `/media/${item.id}`, headers: owner.auth })
  t.equal(read.json().data.alt, 'The Pizol huts under fresh snow', 'stored')
  t.equal((await patch({ alt: '' })).json().data.alt, '', 'empty: decorative, kept as such')
  t.equal((await patch({ alt: 'x'.repeat(1000) })).json().data.alt.length, 1000, '1000 characters are allowed')
  t.equal((await patch({ alt: null })).json().data.alt, null, 'null removes it')

  for (const [payload, path] of [
    [{ alt: 'x'.repeat(1001) }, '/body/alt'],
    [{ alt: 'a\u0007b' }, '/body/alt'],
    [{ alt: 7 }, '/body/alt'],
    [{}, '/body'],
    [{ width: 10 }, '/body/width'],
  ] as const) {
    const refused = await patch(payload)
    t.equal(refused.statusCode, 400, JSON.stringify(payload))
    const error = refused.json().error
    t.equal(error.code, 'VALIDATION_FAILED')
    t.ok(
      error.details.some((detail: { path: string }) => detail.path === path),
      `${JSON.stringify(payload)}: a detail names ${path}`,
    )
  }
  t.equal((await patch({ alt: null })).json().data.alt, null, 'the refusals changed nothing')
})
