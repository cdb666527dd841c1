// listPosts' and getFeed's `category` (a slug or an id) lost the `type`, `minLength` and
// `maxLength` it had beside its `anyOf` (a generator's output did not compile with them): each
// alternative bounds itself, so the same values are accepted and refused as before. Shown over
// HTTP on the edges of each bound.
import t from 'tap'
import { build } from '../helpers/build.ts'

const uuid = '0192f7b0-3c4d-7e5f-9a0b-c1d2e3f4a5b6'
const cases: [value: string, accepted: boolean][] = [
  ['', false],
  ['a', true],
  ['travel-notes', true],
  ['a'.repeat(60), true],
  ['a'.repeat(61), false],
  ['Travel', false],
  ['-travel', false],
  ['travel--notes', false],
  ['a b', false],
  [uuid, true],
  [uuid.toUpperCase(), true],
  // Lower-case hex and dashes make a slug too; in capitals, one character over, neither.
  [`${uuid}0`, true],
  [`${uuid.toUpperCase()}0`, false],
  [`urn:uuid:${uuid}`, false],
]

t.test('category by slug or id: the values accepted and refused', async (t) => {
  const app = await build(t)
  for (const url of ['/posts', '/feed.atom']) {
    for (const [value, accepted] of cases) {
      const answer = await app.inject({ method: 'GET', url, query: { category: value } })
      t.equal(answer.statusCode !== 400, accepted, `${url}?category=${value}: ${answer.statusCode}`)
      if (!accepted) t.match(answer.json(), { error: { code: 'VALIDATION_FAILED' } })
    }
  }
})
