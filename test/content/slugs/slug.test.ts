// slugify on its own: Latin letters lose their accents as they always did for categories, the
// letters of other alphabets are transliterated, ideographs and emoji yield nothing; long slugs are
// cut at a word boundary; whatever the text, the result is a slug or nothing; and the
// transliteration tables are loaded with the first text that needs them, not at start-up (as
// test/lazy-modules.test.ts checks for PGlite and sharp).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { register } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import t from 'tap'

// Registered before slug.ts is imported (dynamically, below): a static import would be resolved first.
const directory = mkdtempSync(join(tmpdir(), 'resolve-log-'))
t.teardown(() => rmSync(directory, { recursive: true, force: true }))
const log = join(directory, 'resolved.txt')
register('../../helpers/resolve-log-hook.mjs', import.meta.url, { data: { log } })
const transliterationLoaded = () =>
  readFileSync(log, 'utf8')
    .split('\n')
    .some((url) => url.includes('/@sindresorhus/transliterate/'))
const { cutSlug, slugify, SLUG_PATTERN } = await import('../../../src/content/slugs/slug.ts')

t.test('the transliteration tables load with the first text outside the Latin script', async (t) => {
  t.ok(readFileSync(log, 'utf8').includes('/src/content/slugs/slug.ts'), 'the hook saw slug.ts being loaded')
  t.equal(await slugify('Café Straße & Œuvres, Ærø İstanbul ﬁnance'), 'cafe-strasse-oeuvres-aero-istanbul-finance')
  t.notOk(transliterationLoaded(), 'Latin text: not loaded')
  t.equal(await slugify('Привет, мир'), 'privet-mir')
  t.ok(transliterationLoaded(), 'Cyrillic: loaded')
})

t.test('what each script yields', async (t) => {
  const cases: [string, string][] = [
    ['Müller über Zürich', 'muller-uber-zurich'], // as category slugs always had it, not `mueller`
    ['été', 'ete'], // decomposed: e and a combining accent
    ['½ ﬁnance', '1-2-finance'],
    ['Щука и ёж', 'schuka-i-yozh'],
    ['Ελληνικά', 'ellinika'],
    ['مرحبا بالعالم', 'mrhba-balealm'],
    ['ქართული', 'qartuli'],
    ['Tiếng Việt', 'tieng-viet'],
    ['東京の夏', ''],
    ['안녕하세요', ''],
    ['שלום', ''],
    ['🎉🏔️ !!!', ''],
    ['  --Hello,   World--  ', 'hello-world'],
  ]
  for (const [text, slug] of cases) t.equal(await slugify(text), slug, text)
})

t.test('cut at a word boundary in the second half, else inside the word', async (t) => {
  t.equal(cutSlug('short', 60), 'short')
  t.equal(cutSlug(`${'a'.repeat(40)}-${'b'.repeat(30)}`, 60), 'a'.repeat(40))
  t.equal(cutSlug(`${'a'.repeat(60)}-b`, 60), 'a'.repeat(60), 'a boundary right after the 60th')
  t.equal(cutSlug(`ab-${'c'.repeat(70)}`, 60), `ab-${'c'.repeat(57)}`, 'a boundary in the first half: cut inside')
  t.equal(cutSlug(`${'a'.repeat(59)}-${'b'.repeat(9)}`, 60), 'a'.repeat(59), 'no trailing hyphen')
})

t.test('any text of up to 200 characters (a title) yields a slug of at most 60, or nothing', async (t) => {
  await fc.assert(
    fc.asyncProperty(fc.string({ unit: 'binary', maxLength: 200 }), async (text) => {
      const slug = await slugify(text)
      return slug === '' || (SLUG_PATTERN.test(slug) && slug.length <= 60)
    }),
    { numRuns: 500, seed: 19 },
  )
  t.pass('500 texts of any code points')
})
