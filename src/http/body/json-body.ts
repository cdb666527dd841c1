// JSON request bodies: Fastify's own parser (prototype poisoning refused), behind two bounds checked
// in one linear scan of the text, before any tree is built. No request schema nests more than a
// few levels or holds more than a few dozen entries, yet a 1 MiB body may nest 500 000 levels deep
// (half a second to parse) or hold 70 000 unknown properties (a tenth of a second to parse, as
// long to validate, and one error each). Such a body is refused for its shape, at the cost of
// reading it once.
import type { FastifyInstance } from 'fastify'
import { ApiError } from '../../errors/api-error.ts'

/** Levels of arrays and objects, the root included: deeper than any request schema goes, by far. */
export const MAX_JSON_DEPTH = 32
/** Array items and object members, all levels together: far more than any request schema accepts. */
export const MAX_JSON_ENTRIES = 1000

/**
 * The first bound `text` breaks, if any. Entries are counted as commas and opening brackets outside
 * strings: exactly the items and members when no array or object is empty, more when some are.
 */
function brokenBound(text: string): 'maxDepth' | 'maxEntries' | null {
  let depth = 0
  let entries = 0
  let inString = false
  for (let at = 0; at < text.length; at++) {
    const char = text.charCodeAt(at)
    if (inString) {
      if (char === 0x5c)
        at++ // a backslash escapes the next character, a quote included
      else if (char === 0x22) inString = false
    } else if (char === 0x22) inString = true
    else if (char === 0x5b || char === 0x7b) {
      if (++depth > MAX_JSON_DEPTH) return 'maxDepth'
      if (++entries > MAX_JSON_ENTRIES) return 'maxEntries'
    } else if (char === 0x5d || char === 0x7d) depth--
    else if (char === 0x2c && ++entries > MAX_JSON_ENTRIES) return 'maxEntries'
  }
  return null
}

const MESSAGES = {
  maxDepth: `must not nest arrays and objects more than ${MAX_JSON_DEPTH} levels deep`,
  maxEntries: `must not hold more than ${MAX_JSON_ENTRIES} array items and object members in all`,
}

export function registerJsonBodies(app: FastifyInstance) {
  const parse = app.getDefaultJsonParser('error', 'error')
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body: string, done) => {
    const broken = brokenBound(body)
    if (broken === null) return parse(request, body, done)
    const detail = { path: '/body', message: MESSAGES[broken], code: broken }
    done(new ApiError(400, 'VALIDATION_FAILED', 'The request does not match the API contract.', [detail]), undefined)
  })
}
