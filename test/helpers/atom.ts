// Reading Atom feeds as a feed reader would, strictly: the bytes must be UTF-8 and a well-formed
// XML 1.0 document with namespaces (saxes stops at any character XML forbids, an unescaped `<` or
// `&`, a `]]>` in text, a tag left open); then the elements RFC 4287 requires, each checked.
import { SaxesParser, type SaxesTagNS } from 'saxes'
import type { Test } from 'tap'

export const ATOM = 'http://www.w3.org/2005/Atom'

export interface XmlElement {
  uri: string
  name: string
  attributes: Record<string, string>
  children: XmlElement[]
  /** The element's own text, its children's left out (Atom's text elements have none). */
  text: string
}

/** The document's root element; throws on anything short of well-formed UTF-8 XML 1.0. */
export function parseXml(bytes: Buffer): XmlElement {
  const source = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  const parser = new SaxesParser({ xmlns: true })
  const stack: XmlElement[] = []
  let root: XmlElement | undefined
  let failure: Error | undefined
  parser.on('error', (error) => (failure ??= error))
  parser.on('opentag', (tag: SaxesTagNS) => {
    const element: XmlElement = {
      uri: tag.uri,
      name: tag.local,
      attributes: Object.fromEntries(
        Object.values(tag.attributes).map((attribute) => [attribute.name, attribute.value]),
      ),
      children: [],
      text: '',
    }
    stack.at(-1)?.children.push(element)
    root ??= element
    stack.push(element)
  })
  parser.on('text', (text) => {
    if (stack.length > 0) stack.at(-1)!.text += text
  })
  parser.on('closetag', () => void stack.pop())
  parser.write(source).close()
  if (failure) throw failure
  if (!root) throw new Error('no root element')
  return root
}

/** The Atom children of `element` named `name`. */
export const childrenOf = (element: XmlElement, name: string) =>
  element.children.filter((child) => child.uri === ATOM && child.name === name)

/** The text of the one Atom child `name`; throws when there is not exactly one. */
export function textOf(element: XmlElement, name: string): string {
  const found = childrenOf(element, name)
  if (found.length !== 1) throw new Error(`${found.length} <${name}> in <${element.name}>`)
  return found[0]!.text
}

const RFC_3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/
const ABSOLUTE_IRI = /^[a-z][a-z0-9+.-]*:\S+$/i
const TEXT_TYPES = ['text', 'html', 'xhtml']

/** The checks RFC 4287 §4.1–4.2 make of a feed and its entries (and this API's promises of links). */
export function checkAtom(t: Test, feed: XmlElement) {
  t.equal(`${feed.uri} ${feed.name}`, `${ATOM} feed`, 'the root is atom:feed')
  const one = (element: XmlElement, name: string, where: string) =>
    t.equal(childrenOf(element, name).length, 1, `${where} has exactly one atom:${name}`)
  const date = (element: XmlElement, name: string, where: string) =>
    t.match(textOf(element, name), RFC_3339, `${where}: atom:${name} is an RFC 3339 date-time`)
  const textConstruct = (element: XmlElement, name: string, where: string) => {
    for (const found of childrenOf(element, name))
      t.ok(TEXT_TYPES.includes(found.attributes.type ?? 'text'), `${where}: atom:${name} has a text construct type`)
  }
  const persons = (element: XmlElement, where: string) => {
    for (const author of childrenOf(element, 'author')) one(author, 'name', `${where}'s atom:author`)
  }
  const links = (element: XmlElement, where: string) => {
    for (const link of childrenOf(element, 'link')) t.ok(link.attributes.href, `${where}: every atom:link has an href`)
    const alternates = childrenOf(element, 'link').filter(
      (link) => (link.attributes.rel ?? 'alternate') === 'alternate',
    )
    const kinds = alternates.map((link) => `${link.attributes.type} ${link.attributes.hreflang}`)
    t.equal(new Set(kinds).size, kinds.length, `${where}: no two alternate links of one type and language`)
    return alternates
  }

  for (const name of ['id', 'title', 'updated']) one(feed, name, 'the feed')
  t.match(textOf(feed, 'id'), ABSOLUTE_IRI, 'the feed id is an absolute IRI')
  date(feed, 'updated', 'the feed')
  textConstruct(feed, 'title', 'the feed')
  persons(feed, 'the feed')
  const feedLinks = childrenOf(feed, 'link')
  t.equal(feedLinks.filter((link) => link.attributes.rel === 'self').length, 1, 'the feed links to itself once')
  t.equal(links(feed, 'the feed').length, 1, 'and to one alternate')
  for (const link of feedLinks) t.match(link.attributes.href, ABSOLUTE_IRI, 'feed links are absolute')

  const entries = childrenOf(feed, 'entry')
  for (const [index, entry] of entries.entries()) {
    const where = `entry ${index}`
    for (const name of ['id', 'title', 'updated']) one(entry, name, where)
    t.match(textOf(entry, 'id'), ABSOLUTE_IRI, `${where}: its id is an absolute IRI`)
    date(entry, 'updated', where)
    t.ok(childrenOf(entry, 'published').length <= 1, `${where}: at most one atom:published`)
    if (childrenOf(entry, 'published').length === 1) date(entry, 'published', where)
    for (const name of ['title', 'summary', 'content']) textConstruct(entry, name, where)
    t.ok(
      childrenOf(entry, 'summary').length <= 1 && childrenOf(entry, 'content').length <= 1,
      `${where}: one summary, one content at most`,
    )
    t.ok(
      childrenOf(entry, 'author').length > 0 || childrenOf(feed, 'author').length > 0,
      `${where} has an author, its own or the feed's`,
    )
    persons(entry, where)
    const alternates = links(entry, where)
    t.ok(childrenOf(entry, 'content').length === 1 || alternates.length > 0, `${where}: content or an alternate link`)
    for (const category of childrenOf(entry, 'category'))
      t.ok(category.attributes.term, `${where}: a category has a term`)
  }
  const ids = entries.map((entry) => textOf(entry, 'id'))
  t.equal(new Set(ids).size, ids.length, 'no two entries share an id')
}
