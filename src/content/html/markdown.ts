// Markdown to sanitized HTML: what a post's `html` holds. Heavy (markdown-it, sanitize-html and the
// postcss it parses style attributes with), so it runs on the renderer's worker thread
// (post-html.ts) and is never loaded by the thread that serves requests.
//
// Two libraries, two jobs. markdown-it parses CommonMark plus GFM tables with raw HTML off: a
// `<script>` written in a post is text, shown as written. sanitize-html then filters what
// markdown-it wrote through an allow-list, so that a bug or a future option in the parser cannot
// let markup through that this list does not name: tags, attributes, URL schemes (after decoding
// entities and stripping the control characters browsers ignore) and styles.
//
// Time and memory are linear in the body, but for tables: markdown-it's block and inline parsers are
// linear on the pathological inputs we know of (test/content/html/pathological.test.ts counts their
// work), its nesting stops at 20 levels, a table fills its rows out to its header's width but to
// at most 65 536 cells (so a short body can make many: render-cost.ts weighs them), and the one
// construct whose output grows faster than its input (a reference link used many times) is cut
// off by rendering against HTML_MAX_LENGTH, token by token.
import MarkdownIt from 'markdown-it'
import sanitizeHtml from 'sanitize-html'
import { HTML_MAX_LENGTH, type RenderResult } from './limits.ts'
import type { BodyMedia } from './body-media.ts'
import { keepWritten, mediaAt, nothingWritten, responsiveImage, type WrittenMedia } from './responsive-image.ts'

/** Schemes a link may use; an image, only the first two. A URL without a scheme is relative. */
const LINK_SCHEMES = ['http', 'https', 'mailto']
const IMAGE_SCHEMES = ['http', 'https']
const SCHEME = /^([a-z][a-z0-9+.-]*):/i

const markdown = new MarkdownIt('commonmark', { html: false, linkify: false, typographer: false }).enable('table')
// markdown-it's own check refuses a few schemes (javascript:, data: but for some images, ...); ours
// admits a few. A destination it refuses is kept as text, not made a link. The sanitizer checks again.
markdown.validateLink = (url: string) => {
  const scheme = SCHEME.exec(url.trim())
  return scheme === null || LINK_SCHEMES.includes(scheme[1]!.toLowerCase())
}

const TEXT_ALIGN = { 'text-align': [/^(left|right|center)$/] }

/** Every tag markdown-it writes for CommonMark and tables, and nothing else. */
const TAGS = 'p h1 h2 h3 h4 h5 h6 blockquote ul ol li pre code em strong a img hr br table thead tbody tr th td'

/** The allow-list (the spec's Post.html describes it). */
const SANITIZE: sanitizeHtml.IOptions = {
  allowedTags: TAGS.split(' '),
  allowedAttributes: {
    a: ['href', 'title', 'rel'],
    // The responsive attributes only as a media item's <img> was written (responsive-image.ts).
    img: ['src', 'srcset', 'sizes', 'width', 'height', 'alt', 'title', 'loading', 'decoding'],
    ol: ['start'],
    code: ['class'],
    th: ['style'],
    td: ['style'],
  },
  // Fenced code's language (```ts → class="language-ts"), for front ends that highlight code.
  allowedClasses: { code: ['language-*'] },
  // Table column alignment, the one style markdown-it writes.
  allowedStyles: { th: TEXT_ALIGN, td: TEXT_ALIGN },
  allowedSchemes: LINK_SCHEMES,
  allowedSchemesByTag: { img: IMAGE_SCHEMES },
  allowedSchemesAppliedToAttributes: ['href', 'src'],
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
  // Links in posts are the author's, not the site's: search engines should not credit them
  // (nofollow ugc), and a page they open gets no handle on ours (noopener).
  transformTags: { a: sanitizeHtml.simpleTransform('a', { rel: 'nofollow ugc noopener' }) },
}

type Token = ReturnType<typeof markdown.parse>[number]

/** What the rules of one render share: the author's media, and what was written of them. */
interface RenderEnv {
  media?: BodyMedia
  written: WrittenMedia
}

// An image whose URL names one of the author's media items renders responsive; any other, as
// markdown-it renders it (src, alt, title). markdown-it types env loosely: it is always ours.
const plainImage = markdown.renderer.rules.image!
markdown.renderer.rules.image = (tokens, index, options, env, renderer) => {
  const { media, written } = env as unknown as RenderEnv
  const token = tokens[index]!
  const item = mediaAt(media, String(token.attrGet('src') ?? ''))
  if (item === undefined) return plainImage(tokens, index, options, env, renderer)
  const alt = renderer.renderInlineAsText(token.children ?? [], options, env)
  const title = token.attrGet('title')
  const text = { alt, title: title === null ? null : String(title) }
  return responsiveImage(media!, item, text, markdown.utils.escapeHtml, written)
}

/**
 * Renders tokens as markdown-it's renderer does (Renderer.render and renderInline), stopping as
 * soon as the output passes `max` bytes of UTF-8: null then. What it holds is never longer than `max` plus one
 * token's output (at most a few times the body's length).
 */
function renderWithin(tokens: Token[], max: number, env: RenderEnv): string | null {
  const { renderer, options } = markdown
  const parts: string[] = []
  let length = 0
  const add = (list: Token[], index: number) => {
    const rule = renderer.rules[list[index]!.type]
    const piece = rule
      ? rule(list, index, options, env as unknown as Record<string, unknown>, renderer)
      : renderer.renderToken(list, index, options)
    length += Buffer.byteLength(piece)
    parts.push(piece)
    return length <= max
  }
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!
    if (token.type !== 'inline') {
      if (!add(tokens, i)) return null
      continue
    }
    const children = token.children ?? []
    for (let j = 0; j < children.length; j++) if (!add(children, j)) return null
  }
  return parts.join('')
}

/**
 * HTML filtered through the allow-list: the second of the two steps, on its own for tests. An
 * <img> keeps responsive attributes only as `written` records them (responsive-image.ts).
 */
export const sanitizePostHtml = (html: string, written = nothingWritten()) =>
  sanitizeHtml(html, { ...SANITIZE, transformTags: { ...SANITIZE.transformTags, img: keepWritten(written) } })

/**
 * A post's body as sanitized HTML, with the ids of the media items it shows (sorted), or tooLarge
 * when that HTML would pass `max` (HTML_MAX_LENGTH; tests lift it to show what the bound prevents).
 * `media`: the author's media items the body's URLs name (body-media.ts); without it every image
 * renders plain.
 */
export function renderMarkdown(body: string, max = HTML_MAX_LENGTH, media?: BodyMedia): RenderResult {
  const env: RenderEnv = { media, written: nothingWritten() }
  const raw = renderWithin(markdown.parse(body, {}), max, env)
  if (raw === null) return { tooLarge: true }
  const html = sanitizePostHtml(raw, env.written)
  // The sanitizer adds `rel` to every link, so its output can be longer than its input.
  if (Buffer.byteLength(html) > max) return { tooLarge: true }
  return { html, mediaIds: [...env.written.mediaIds].sort() }
}
