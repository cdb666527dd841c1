// Whether HTML can run script in a browser, judged by parsing it as the sanitizer's own parser
// (htmlparser2) does, with entities decoded: every element and attribute must be on the post
// allow-list (Post.html in the spec), no attribute may be an event handler, and every URL must
// use an allowed scheme once decoded and stripped of what browsers ignore in one.
import { Parser } from 'htmlparser2'

const ATTRIBUTES: Record<string, string[]> = {
  p: [],
  h1: [],
  h2: [],
  h3: [],
  h4: [],
  h5: [],
  h6: [],
  blockquote: [],
  ul: [],
  ol: ['start'],
  li: [],
  pre: [],
  code: ['class'],
  em: [],
  strong: [],
  a: ['href', 'title', 'rel'],
  img: ['src', 'alt', 'title'],
  hr: [],
  br: [],
  table: [],
  thead: [],
  tbody: [],
  tr: [],
  th: ['style'],
  td: ['style'],
}

const SCHEMES: Record<string, string[]> = { href: ['http', 'https', 'mailto'], src: ['http', 'https'] }

/**
 * The scheme a browser reads from a URL attribute's (decoded) value, or null for a relative URL.
 * Browsers drop leading and trailing C0 controls and spaces, and tabs and newlines anywhere.
 */
export function schemeOf(url: string): string | null {
  // eslint-disable-next-line no-control-regex -- C0 controls are exactly what browsers strip
  const stripped = url.replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '').replace(/[\t\n\r]/g, '')
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(stripped)
  return scheme ? scheme[1]!.toLowerCase() : null
}

/** Every way `html` could run script or leave the allow-list; empty when it cannot. */
export function unsafeParts(html: string): string[] {
  const problems: string[] = []
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        const allowed = ATTRIBUTES[name]
        if (!allowed) {
          problems.push(`element <${name}>`)
          return
        }
        for (const [attribute, value] of Object.entries(attributes)) {
          if (/^on/i.test(attribute)) problems.push(`event handler ${attribute} on <${name}>`)
          else if (!allowed.includes(attribute)) problems.push(`attribute ${attribute} on <${name}>`)
          const schemes = SCHEMES[attribute]
          const scheme = schemes && schemeOf(value)
          if (schemes && scheme !== null && !schemes.includes(scheme!))
            problems.push(`${attribute}="${value}" on <${name}> (scheme ${scheme})`)
          if (attribute === 'style' && !/^text-align:(left|right|center);?$/.test(value.replace(/\s/g, '')))
            problems.push(`style="${value}" on <${name}>`)
          if (attribute === 'class' && !value.split(/\s+/).every((name) => name.startsWith('language-')))
            problems.push(`class="${value}" on <${name}>`)
        }
        if (name === 'a' && attributes.rel !== 'nofollow ugc noopener')
          problems.push(`<a> without rel: ${attributes.rel}`)
      },
      oncomment: () => void problems.push('a comment'),
      onprocessinginstruction: (name) => void problems.push(`processing instruction ${name}`),
      oncdatastart: () => void problems.push('CDATA'),
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true, recognizeCDATA: true },
  )
  parser.write(html)
  parser.end()
  return problems
}
