// Request validation with ajv's JSON Schema 2020-12 dialect, the one OpenAPI 3.1 uses.
// Bodies are validated as sent (no type coercion: "5" is not 5 in JSON); path, query and header
// values are strings on the wire, so they are coerced to the types the spec declares.
// Unknown properties are refused, never silently removed (removeAdditional: false).
// A UUID (`format: uuid`) is accepted in either case and handed on in lower case, the spelling the
// database returns: handlers, services and caches compare ids as strings, and meet on one spelling.
// Multipart bodies are not validated here: they are streams the handler reads part by part
// (src/http/body/upload.ts), after the caller's rights were checked, never objects parsed up front.
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import type { ErrorObject, ValidateFunction } from 'ajv'
import type { FastifySchemaCompiler } from 'fastify'

/**
 * The spec's mark on every text field a client writes (names, titles, bodies, …; see its "Text"):
 * no C0 control character but tab, line feed and carriage return. Such a character is six bytes
 * in every JSON page that shows it (`\u0001`) and nothing a reader can see. A vendor keyword
 * rather than a `pattern`, which the breaking-change check counts as a new constraint on 1.x
 * clients; the spec's "Text" gives the pattern it stands for.
 */
export const TEXT_KEYWORD = 'x-text'
// NUL is left to `unstorable`: refused in every string, with its own code (noNulCharacter).
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL_CHARACTER = /[\x01-\x08\x0B\x0C\x0E-\x1F]/

/** Our keyword, added beside every `format: uuid` of a request schema (see lowerCasingUuids). */
const LOWER_CASE_UUID = 'lowerCaseUuid'
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

function makeAjv(coerceTypes: boolean | 'array') {
  const ajv = new Ajv2020({
    strict: true,
    allErrors: true,
    coerceTypes,
    useDefaults: true,
    removeAdditional: false,
    // Fastify adds its own keys to route schemas; OpenAPI adds `xml` and `externalDocs`.
    keywords: ['xml', 'externalDocs'],
  })
  addFormats.default(ajv)
  ajv.addKeyword({
    keyword: LOWER_CASE_UUID,
    type: 'string',
    schemaType: 'boolean',
    modifying: true,
    errors: false,
    // Only a value that is a UUID: in a branch of `anyOf` that fails, the value may be something else.
    validate: (
      _: boolean,
      data: string,
      _schema?: unknown,
      at?: { parentData: Record<string | number, unknown>; parentDataProperty: string | number },
    ) => {
      if (at?.parentData !== undefined && UUID.test(data)) at.parentData[at.parentDataProperty] = data.toLowerCase()
      return true
    },
  })
  addTextKeyword(ajv)
  return ajv
}

/** Teaches an ajv instance the spec's `x-text` (the service's, and the contract tests'). */
export function addTextKeyword(ajv: Ajv2020) {
  ajv.addKeyword({
    keyword: TEXT_KEYWORD,
    type: 'string',
    schemaType: 'boolean',
    validate: (text: boolean, data: string) => !text || !CONTROL_CHARACTER.test(data),
  })
}

/** A copy of `schema` whose every `format: uuid` also lower-cases the value it accepts. */
function lowerCasingUuids(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(lowerCasingUuids)
  if (schema === null || typeof schema !== 'object') return schema
  const copy = Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, lowerCasingUuids(value)]))
  return copy.format === 'uuid' ? { ...copy, [LOWER_CASE_UUID]: true } : copy
}

const issue = (instancePath: string, keyword: string, message: string): ErrorObject => ({
  instancePath,
  schemaPath: '#',
  keyword,
  params: {},
  message,
})

/** The JSON pointer of a value, from the keys leading to it. */
const pointer = (keys: readonly (string | number)[]) =>
  keys.map((key) => `/${String(key).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('')

/**
 * A surrogate code unit without its pair. JSON may spell one (`"\ud800"`), but it is no Unicode
 * character: written to the database as UTF-8 it silently became U+FFFD. A schema `pattern` could
 * say it only for validators that read patterns as Unicode (ajv's `u` flag), so it is checked here.
 */
const LONE_SURROGATE = /\p{Surrogate}/u

/**
 * What JSON Schema cannot say but the service cannot take: PostgreSQL refuses the NUL character
 * in text, a lone surrogate is no character, and ajv's coercion turns `limit=Infinity` or `1e400` into an infinite number that no
 * `type: integer` or `maximum` check stops everywhere. Both would otherwise reach the database or
 * the handler and come back as a 500. `keys` leads to `value` (pushed and popped on the way down):
 * its pointer is built only for a value refused, which nearly every request has none of.
 */
function unstorable(value: unknown, keys: (string | number)[], found: ErrorObject[]) {
  if (typeof value === 'string') {
    if (value.includes('\u0000'))
      found.push(issue(pointer(keys), 'noNulCharacter', 'must not contain the NUL character'))
    else if (LONE_SURROGATE.test(value))
      found.push(issue(pointer(keys), 'noLoneSurrogate', 'must not contain a lone UTF-16 surrogate'))
  } else if (typeof value === 'number') {
    if (!Number.isFinite(value)) found.push(issue(pointer(keys), 'finite', 'must be a finite number'))
  } else if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      keys.push(index)
      unstorable(value[index], keys, found)
      keys.pop()
    }
  } else if (value !== null && typeof value === 'object') {
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue
      keys.push(key)
      if (key.includes('\u0000'))
        found.push(issue(pointer(keys), 'noNulCharacter', 'must not contain the NUL character'))
      unstorable((value as Record<string, unknown>)[key], keys, found)
      keys.pop()
    }
  }
  return found
}

/** The compiled ajv validator, then the checks above on the data it accepted (and coerced). */
function refusingUnstorable(validate: ValidateFunction): ValidateFunction {
  const wrapped = ((data: unknown, context?: Parameters<ValidateFunction>[1]) => {
    if (!validate(data, context)) {
      wrapped.errors = validate.errors
      return false
    }
    const found = unstorable(data, [], [])
    wrapped.errors = found.length > 0 ? found : null
    return found.length === 0
  }) as ValidateFunction
  // Fastify passes the parent object (so ajv may coerce a root value) only to validators that have one.
  return Object.assign(wrapped, { schema: validate.schema, schemaEnv: validate.schemaEnv })
}

/**
 * The headers schema with its names in lower case, as Node hands headers over. Fastify does this
 * itself only for its own compiler: with ours, `If-None-Match`'s schema never met the header
 * `if-none-match`, and header parameters went unchecked.
 */
function lowerCasingHeaderNames(schema: unknown): unknown {
  const { properties, required, ...rest } = schema as { properties?: Record<string, unknown>; required?: string[] }
  return {
    ...rest,
    ...(properties && {
      properties: Object.fromEntries(Object.entries(properties).map(([name, value]) => [name.toLowerCase(), value])),
    }),
    ...(required && { required: required.map((name) => name.toLowerCase()) }),
  }
}

export function makeValidatorCompiler(): FastifySchemaCompiler<unknown> {
  const bodies = makeAjv(false)
  const parameters = makeAjv('array')
  return ({ schema, httpPart, contentType }) => {
    if (httpPart === 'body' && contentType === 'multipart/form-data') return () => true
    const named = httpPart === 'headers' ? lowerCasingHeaderNames(schema) : schema
    return refusingUnstorable((httpPart === 'body' ? bodies : parameters).compile(lowerCasingUuids(named) as object))
  }
}
