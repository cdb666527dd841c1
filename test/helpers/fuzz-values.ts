// Values for the fuzz test (test/contract/fuzz.test.ts), drawn with fast-check from the spec's own
// JSON Schemas. `valid` keeps to the schema (the server may still refuse by a rule the schema cannot
// say, such as a past publishedAt); `hostile` strings are the kinds that break parsers, regexes and
// databases; `wrongFor` is a value of another type than the schema's.
import fc from 'fast-check'
import type { Json } from './spec-schemas.ts'

/** Values the test made (ids that exist, real credentials), by property or parameter name. */
export type Hints = Record<string, readonly string[]>

const text = (schema: Json, key: string) => schema[key] as number | undefined

/** Repeated Markdown and HTML openers: quadratic for a backtracking regex or a naive tokenizer. */
const OPENERS = [
  '![',
  '[',
  '`',
  '*',
  '_',
  '<',
  '(',
  '](',
  '<!--',
  '~',
  '#',
  '> ',
  '\\',
  '|',
  ':',
  '-',
  '&',
  '[a](',
  '**_',
]

const fill = (unit: string, n: number) => unit.repeat(Math.ceil(n / unit.length)).slice(0, n)

/** Markdown openers repeated up to `maxLength` characters: valid, and the worst case for a scanner. */
export const pathologicalText = (maxLength: number) =>
  fc
    .tuple(
      fc.constantFrom(...OPENERS),
      fc.constantFrom(maxLength, Math.ceil(maxLength / 2), Math.min(maxLength, 1_000)),
    )
    .map(([unit, n]) => fill(unit, n))

export function hostileString(maxLength = 100_000): fc.Arbitrary<string> {
  // At the schema's limit (a body of 100 000 characters) or a little past it.
  const length = fc.constantFrom(1, 100, 1_000, maxLength, maxLength + 1).map((n) => Math.max(1, Math.min(n, 100_001)))
  return fc.oneof(
    fc.tuple(fc.constantFrom(...OPENERS), length).map(([unit, n]) => fill(unit, n)),
    fc
      .tuple(fc.constantFrom('\u200b', '\u200d', '\ufeff', '\u00a0', ' ', '\t', '\n', '\r\n', '\u2028'), length)
      .map(([unit, n]) => fill(unit, n)),
    fc
      .tuple(fc.constantFrom('😀', '👩‍👩‍👧', 'e\u0301', '\u202e', 'ß', 'İ', '\ud800', '\udfff'), length)
      .map(([unit, n]) => fill(unit, n)),
    fc.constantFrom(
      '\u0000',
      'a\u0000b',
      "'; drop table posts; --",
      '%00',
      '../../etc/passwd',
      '${jndi:x}',
      '{{7*7}}',
      '<script>alert(1)</script>',
      '__proto__',
      'constructor',
      'null',
      '-1',
      '1e400',
      'NaN',
    ),
    fc.string({ unit: 'binary', maxLength: 50 }),
  )
}

/** Any JSON value whose type is not the schema's (or anything at all for an untyped schema). */
export function wrongFor(schema: Json): fc.Arbitrary<unknown> {
  const type = schema.type
  const types = Array.isArray(type) ? type : [type]
  const others: fc.Arbitrary<unknown>[] = []
  if (!types.includes('string')) others.push(fc.string({ maxLength: 20 }))
  if (!types.includes('integer') && !types.includes('number'))
    others.push(fc.oneof(fc.integer(), fc.double({ noNaN: true })))
  if (!types.includes('boolean')) others.push(fc.boolean())
  if (!types.includes('null')) others.push(fc.constant(null))
  if (!types.includes('object'))
    others.push(fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }))
  if (!types.includes('array')) others.push(fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 3 }))
  return others.length > 0 ? fc.oneof(...others) : fc.jsonValue({ maxDepth: 2 })
}

/** A value the schema accepts. `deref` follows `$ref`s into the document. */
/**
 * A pattern of one repeated character class (`^[…]+$`) with the schema's lengths put into it
 * (`^[…]{20,200}$`): fast-check makes short repetitions, and filtering those by a minLength of 20
 * rejects nearly every value, so generation would spin for minutes.
 */
function withLengths(pattern: string, minLength: number, maxLength: number) {
  const repeated = /^\^(\[[^\]]+\])\+\$$/.exec(pattern)
  return repeated === null ? pattern : `^${repeated[1]}{${Math.max(minLength, 1)},${maxLength}}$`
}

export function makeValid(deref: (node: Json) => Json, hints: Hints) {
  const hinted = (name: string, base: fc.Arbitrary<unknown>) => {
    const known = hints[name] ?? []
    return known.length > 0
      ? fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...known) }, { weight: 1, arbitrary: base })
      : base
  }

  function stringOf(schema: Json): fc.Arbitrary<string> {
    const minLength = text(schema, 'minLength') ?? 0
    const maxLength = text(schema, 'maxLength') ?? 1000
    const fits = (value: string) => [...value].length >= minLength && [...value].length <= maxLength
    if (schema.format === 'uuid') return fc.uuid()
    if (schema.format === 'email') return fc.emailAddress().filter(fits)
    if (schema.format === 'date-time') {
      return fc
        .date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2200-01-01T00:00:00Z'), noInvalidDate: true })
        .map((date) => date.toISOString())
    }
    if (typeof schema.pattern === 'string') {
      return fc.stringMatching(new RegExp(withLengths(schema.pattern as string, minLength, maxLength))).filter(fits)
    }
    // Mostly short (fast-check's size keeps lengths small); long text fields (post bodies) are
    // now and then filled with what is worst for a Markdown scanner.
    const plain = fc
      .oneof(fc.string({ minLength, maxLength }), fc.string({ unit: 'grapheme', minLength, maxLength }))
      .filter(fits)
    return maxLength >= 1_000
      ? fc.oneof({ weight: 3, arbitrary: plain }, { weight: 1, arbitrary: pathologicalText(maxLength) })
      : plain
  }

  function valid(node: Json, name = ''): fc.Arbitrary<unknown> {
    const schema = deref(node)
    if ('const' in schema) return fc.constant(schema.const)
    if (Array.isArray(schema.enum)) return hinted(name, fc.constantFrom(...(schema.enum as unknown[])))
    if (Array.isArray(schema.anyOf)) return fc.oneof(...(schema.anyOf as Json[]).map((branch) => valid(branch, name)))
    if (Array.isArray(schema.type))
      return fc.oneof(...(schema.type as string[]).map((type) => valid({ ...schema, type }, name)))
    switch (schema.type) {
      case 'null':
        return fc.constant(null)
      case 'boolean':
        return fc.boolean()
      case 'integer':
        return fc.integer({ min: text(schema, 'minimum') ?? -(2 ** 31), max: text(schema, 'maximum') ?? 2 ** 31 - 1 })
      case 'number':
        return fc.double({ min: text(schema, 'minimum') ?? -1e9, max: text(schema, 'maximum') ?? 1e9, noNaN: true })
      case 'array': {
        const item = valid(schema.items as Json, name)
        const constraints = { minLength: text(schema, 'minItems') ?? 0, maxLength: text(schema, 'maxItems') ?? 10 }
        return schema.uniqueItems ? fc.uniqueArray(item, constraints) : fc.array(item, constraints)
      }
      case 'object':
        return objectOf(schema)
      default:
        return hinted(name, stringOf(schema))
    }
  }

  function objectOf(schema: Json): fc.Arbitrary<Record<string, unknown>> {
    const properties = (schema.properties ?? {}) as Record<string, Json>
    const required = (schema.required ?? []) as string[]
    const record = fc.record(
      Object.fromEntries(Object.entries(properties).map(([key, property]) => [key, valid(property, key)])),
      { requiredKeys: required },
    )
    const minProperties = text(schema, 'minProperties') ?? 0
    return record.filter((value) => Object.keys(value).length >= minProperties)
  }

  return valid
}
