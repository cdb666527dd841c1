// No executable output, whatever the body: the OWASP cheat sheet's vectors and Markdown's own ways
// in (xss-vectors.ts), rendered as a post's body and, for raw HTML, also handed to the sanitizer
// directly, are parsed back and checked against the allow-list (test/helpers/html-safety.ts).
import t from 'tap'
import { renderMarkdown, sanitizePostHtml } from '../../../src/content/html/markdown.ts'
import { unsafeParts } from '../../helpers/html-safety.ts'
import { HTML_VECTORS, MARKDOWN_VECTORS } from './xss-vectors.ts'

const htmlOf = (body: string) => {
  const result = renderMarkdown(body)
  if ('tooLarge' in result) throw new Error('rendered past the bound')
  return result.html
}

/** Each vector alone, and inside the block structures a post can nest it in. */
const contexts = (vector: string) => [
  vector,
  `Some text before ${vector} and after.`,
  `- ${vector.replace(/\n/g, '\n  ')}`,
  `> ${vector.replace(/\n/g, '\n> ')}`,
  `| a |\n|---|\n| ${vector.replace(/\n/g, ' ')} |`,
]

t.test('the corpus is broad enough', async (t) => {
  t.ok(MARKDOWN_VECTORS.length >= 40, `${MARKDOWN_VECTORS.length} Markdown vectors`)
  t.ok(HTML_VECTORS.length >= 40, `${HTML_VECTORS.length} raw HTML vectors`)
})

t.test('the checker sees what a browser would run', async (t) => {
  // Without these, an empty list of problems could mean a blind checker.
  const unsafe = [
    '<script>alert(1)</script>',
    '<img src="x" onerror="alert(1)">',
    '<a href="jav&#x09;ascript:alert(1)" rel="nofollow ugc noopener">x</a>',
    '<a href=" &#14; JAVASCRIPT:alert(1)" rel="nofollow ugc noopener">x</a>',
    '<img src="data:image/png;base64,AAAA">',
    '<a href="mailto:a@example.com">no rel</a>',
    '<td style="background:url(javascript:alert(1))">x</td>',
    '<svg></svg>',
    '<p id="x">x</p>',
  ]
  for (const html of unsafe) t.not(unsafeParts(html).length, 0, html)
  t.same(
    unsafeParts(
      '<p><a href="https://example.com" rel="nofollow ugc noopener">x</a> <img src="/images/x.webp" alt="x"></p>',
    ),
    [],
  )
})

t.test('Markdown vectors render to nothing executable, in any context', async (t) => {
  for (const vector of MARKDOWN_VECTORS) {
    for (const body of contexts(vector)) {
      const html = htmlOf(body)
      t.same(unsafeParts(html), [], `${JSON.stringify(body)} → ${html}`)
    }
  }
})

t.test('raw HTML in a body is shown as text, never as markup', async (t) => {
  for (const vector of HTML_VECTORS) {
    for (const body of contexts(vector)) {
      const html = htmlOf(body)
      t.same(unsafeParts(html), [], `${JSON.stringify(body)} → ${html}`)
    }
    t.notMatch(htmlOf(vector), /<(script|svg|iframe|object|embed|form|style|input|meta|base|link|body|math)\b/i, vector)
  }
})

t.test('the sanitizer on its own stops raw HTML vectors', async (t) => {
  for (const vector of HTML_VECTORS) {
    const html = sanitizePostHtml(vector)
    t.same(unsafeParts(html), [], `${JSON.stringify(vector)} → ${html}`)
  }
})

t.test('what is allowed survives', async (t) => {
  t.equal(
    htmlOf('[site](https://example.com "Title") [mail](mailto:a@example.com) [rel](/posts?x=1#y)'),
    '<p><a href="https://example.com" title="Title" rel="nofollow ugc noopener">site</a> ' +
      '<a href="mailto:a@example.com" rel="nofollow ugc noopener">mail</a> ' +
      '<a href="/posts?x=1#y" rel="nofollow ugc noopener">rel</a></p>\n',
  )
  t.equal(
    htmlOf('<https://example.com/a?b=c&d=e>'),
    '<p><a href="https://example.com/a?b=c&amp;d=e" rel="nofollow ugc noopener">https://example.com/a?b=c&amp;d=e</a></p>\n',
  )
  t.equal(
    htmlOf('![alt](https://example.com/x.png "t")'),
    '<p><img src="https://example.com/x.png" alt="alt" title="t" /></p>\n',
  )
  t.equal(htmlOf('[x](javascript:alert(1))'), '<p>[x](javascript:alert(1))</p>\n', 'a refused destination stays text')
  t.equal(htmlOf('<b>bold</b> & "quotes"'), '<p>&lt;b&gt;bold&lt;/b&gt; &amp; "quotes"</p>\n')
})
