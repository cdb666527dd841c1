// An author cannot smuggle responsive attributes, or anything else, into an <img>: srcset, sizes,
// width, height, loading and decoding appear only as the renderer writes them for the author's own
// media item, with exactly its values; titles, alt texts (the Markdown's and the library's) and
// URLs stay attribute values; raw HTML stays text. Shown over HTTP and on the sanitizer alone.
import t from 'tap'
import { sanitizePostHtml } from '../../../src/content/html/markdown.ts'
import { registerUser } from '../../helpers/accounts.ts'
import { build } from '../../helpers/build.ts'
import { unsafeParts } from '../../helpers/html-safety.ts'
import { createMedia, imagesIn, type MediaItem } from '../../helpers/media.ts'
import { createPost } from '../../helpers/posts.ts'
import { HTML_VECTORS } from '../html/xss-vectors.ts'

const RESPONSIVE = ['srcset', 'sizes', 'width', 'height', 'loading', 'decoding']

/** What html-safety finds, but the responsive attributes on <img>, which the next check judges. */
const unsafeBesidesResponsive = (html: string) =>
  unsafeParts(html).filter((problem) => !RESPONSIVE.some((name) => problem === `attribute ${name} on <img>`))

/** Every <img> carrying a responsive attribute carries exactly the item's values. */
function forgedImages(html: string, item: MediaItem) {
  const srcset = item.renditions.map((rendition) => `${rendition.url} ${rendition.width}w`).join(', ')
  const ours = {
    src: item.url,
    srcset,
    sizes: `(max-width: ${item.width}px) 100vw, ${item.width}px`,
    width: String(item.width),
    height: String(item.height),
    loading: 'lazy',
    decoding: 'async',
  }
  return imagesIn(html).filter(
    (image) =>
      RESPONSIVE.some((name) => name in image) && Object.entries(ours).some(([name, value]) => image[name] !== value),
  )
}

t.test('Markdown cannot put attributes on an <img>', async (t) => {
  const app = await build(t)
  const author = await registerUser(app)
  const item = await createMedia(app, author.auth, {
    width: 1280,
    alt: '"><script>alert(1)</script><img src=x onerror=alert(1)>',
  })
  const attempts = [
    `![x](${item.url} "a\\" onerror=\\"alert(1)\\" srcset=\\"https://evil.example/x.png 1w")`,
    `![x" onerror="alert(1)](${item.url})`,
    `![<img src=x srcset="https://evil.example/x.png 1w" onerror=alert(1)>](${item.url})`,
    `![](${item.url})`,
    `![x](<https://photos.example.org/a.png" srcset="https://evil.example/x.png 1w" onerror="alert(1)>)`,
    `<img src="${item.url}" srcset="https://evil.example/x.png 1w" sizes="1px" loading="eager" onerror="alert(1)">`,
    `![x](${item.url}" srcset="https://evil.example/x.png 1w)`,
    `[![x](${item.url})](javascript:alert(1))`,
  ]
  for (const body of attempts) {
    const post = await createPost(app, author, { body })
    const html = post.html as string
    t.same(unsafeBesidesResponsive(html), [], `nothing unsafe: ${body}`)
    t.same(forgedImages(html, item), [], `no responsive attribute but the item's own: ${body}`)
    t.same(
      imagesIn(html).filter((image) => image.srcset?.includes('evil.example')),
      [],
      `no foreign srcset: ${body}`,
    )
  }
  const titled = imagesIn((await createPost(app, author, { body: attempts[0]! })).html as string)
  t.equal(titled[0]!.title, 'a" onerror="alert(1)" srcset="https://evil.example/x.png 1w', 'the title stays a value')
  const libraryAlt = imagesIn((await createPost(app, author, { body: attempts[3]! })).html as string)
  t.equal(libraryAlt[0]!.alt, item.alt, "the library's alt stays a value")
})

t.test('the sanitizer drops responsive attributes the renderer did not write', async (t) => {
  const key = `${'a'.repeat(64)}.webp`
  const forged = [
    `<img src="/images/${key}" srcset="/images/${key} 320w" sizes="(max-width: 320px) 100vw, 320px" width="320" height="213" alt="" loading="lazy" decoding="async">`,
    '<img src="/x.png" srcset="javascript:alert(1) 1w, /y.png 2x">',
    '<img src="/x.png" width="99999" height="1" loading="eager" decoding="sync" sizes="100vw">',
    '<img src="/x.png" onerror="alert(1)" srcset="/y.png 1w">',
  ]
  for (const html of [...forged, ...HTML_VECTORS]) {
    const clean = sanitizePostHtml(html)
    t.same(unsafeParts(clean), [], html)
  }
})
